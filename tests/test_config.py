"""`load_config`: toolwire.toml, environment overrides, and errors that name key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.config import DEFAULT_STORE_URL, ToolwireConfig, load_config
from toolwire.config.files import key_line
from toolwire.errors import ConfigurationError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "toolwire.toml"
    path.write_text(text)
    return path


def test_defaults_sandbox_the_current_directory_read_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(env={})
    assert config.source is None
    assert config.sandbox_write == (str(tmp_path.resolve()),)
    assert config.sandbox_read == ()
    assert config.store_url == f"sqlite:///{tmp_path.resolve()}/.toolwire/state.db"
    assert config.toolsets is None
    assert config.result_budget_chars == 80_000
    assert (config.http_host, config.http_port) == ("127.0.0.1", 8765)


def test_the_default_store_url_is_the_embedded_sqlite_file() -> None:
    assert DEFAULT_STORE_URL == "sqlite:///.toolwire/state.db"


def test_a_full_file_is_read_with_paths_relative_to_it(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[sandbox]
roots = ["work"]
read_only = ["/usr/share"]

[network]
allow = ["api.github.com"]
deny = ["*.internal"]

[store]
url = "redis://127.0.0.1:6379/0"

[tools]
toolsets = ["file"]
result_budget_chars = 5000

[serve]
host = "0.0.0.0"
port = 9000

[mcp.servers.files]
command = "npx"
args = ["-y", "server"]
result_limit_chars = 1000

[mcp.servers.remote]
url = "http://127.0.0.1:9999/mcp"
headers = { Authorization = "Bearer x" }
""",
    )
    (tmp_path / "work").mkdir()
    config = load_config(path, env={})
    assert config.sandbox_write == (str(tmp_path / "work"),)
    assert config.sandbox_read == ("/usr/share",)
    assert config.network_allow == ("api.github.com",)
    assert config.network_deny == ("*.internal",)
    assert config.store_url == "redis://127.0.0.1:6379/0"
    assert config.toolsets == ("file",)
    assert config.result_budget_chars == 5000
    assert (config.http_host, config.http_port) == ("0.0.0.0", 9000)
    files, remote = config.mcp_servers
    assert (files.name, files.command, files.args, files.result_limit_chars) == (
        "files",
        "npx",
        ("-y", "server"),
        1000,
    )
    assert (remote.url, dict(remote.headers or {})) == (
        "http://127.0.0.1:9999/mcp",
        {"Authorization": "Bearer x"},
    )


def test_a_relative_sqlite_path_resolves_against_the_config_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[store]\nurl = "sqlite:///state/kv.db"\n')
    assert load_config(path, env={}).store_url == f"sqlite:///{tmp_path.resolve()}/state/kv.db"


def test_environment_variables_override_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[store]\nurl = "memory://"\n[tools]\ntoolsets = ["file"]\n')
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    config = load_config(
        path,
        env={
            "TOOLWIRE_STORE_URL": "postgresql://u@h/db",
            "TOOLWIRE_TOOLSETS": "terminal, process",
            "TOOLWIRE_SANDBOX_ROOTS": f"{a}:{b}",
            "TOOLWIRE_NETWORK_ALLOW": "x.com,y.com",
            "TOOLWIRE_RESULT_BUDGET_CHARS": "1234",
            "TOOLWIRE_PORT": "0",
        },
    )
    assert config.store_url == "postgresql://u@h/db"
    assert config.toolsets == ("terminal", "process")
    assert config.sandbox_write == (str(a), str(b))
    assert config.network_allow == ("x.com", "y.com")
    assert config.result_budget_chars == 1234
    assert config.http_port == 0


def test_toolwire_config_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "[tools]\nresult_budget_chars = 10\n")
    assert load_config(env={"TOOLWIRE_CONFIG": str(path)}).result_budget_chars == 10


def test_a_wrong_type_names_the_key_and_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, '[sandbox]\nroots = ["."]\n\n[store]\nurl = 5\n')
    with pytest.raises(ConfigurationError) as caught:
        load_config(path, env={})
    assert str(caught.value) == f"{path}:5: store.url: expected a string, got an integer"


def test_an_unknown_key_is_refused_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[tools]\nresult_budget = 5\n")
    with pytest.raises(ConfigurationError, match=r"toolwire.toml:2: tools.result_budget: unknown"):
        load_config(path, env={})


def test_a_bad_mcp_server_points_at_its_table(tmp_path: Path) -> None:
    path = write(tmp_path, '[network]\nallow = []\n\n[mcp.servers."a__b"]\ncommand = "x"\n')
    with pytest.raises(ConfigurationError, match=r":4: mcp.servers.a__b: MCP server name"):
        load_config(path, env={})


def test_invalid_toml_gives_the_line_not_a_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "[store]\nurl = \n")
    with pytest.raises(ConfigurationError, match=r"invalid TOML: .*line 2"):
        load_config(path, env={})


def test_a_bad_environment_value_names_the_variable() -> None:
    with pytest.raises(ConfigurationError, match=r"\$TOOLWIRE_PORT: expected an integer"):
        load_config(env={"TOOLWIRE_PORT": "eighty"})


def test_a_missing_named_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="does not exist"):
        load_config(tmp_path / "nope.toml", env={})


def test_key_line_finds_dotted_keys_and_headers() -> None:
    text = "a.b = 1\n[x.y]\nz = 2\n"
    assert key_line(text, ("a", "b")) == 1
    assert key_line(text, ("x", "y")) == 2
    assert key_line(text, ("x", "y", "z")) == 3
    assert key_line(text, ("q",)) is None


def test_config_is_frozen() -> None:
    config = ToolwireConfig(base_dir="/tmp")
    with pytest.raises(AttributeError):
        config.store_url = "memory://"  # type: ignore[misc]
