"""``toolwire doctor``: every part checked for real here, each problem with its fix."""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from service_checks import IN_CI
from toolwire.capabilities.kinds.process.sandbox._settings import SandboxSettings
from toolwire.cli import doctor_checks
from toolwire.cli.app import app
from toolwire.cli.doctor_checks import (
    check_chromium,
    check_node,
    check_sandbox,
    check_search,
    check_store,
    check_web,
    shown_url,
)
from toolwire.config import ToolwireConfig
from toolwire.mcp._settings import McpServerConfig

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "toolwire.toml").write_text('[store]\nurl = "memory://"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLWIRE_CONFIG", raising=False)
    return tmp_path


def require_service(name: str, host: str, port: int) -> None:
    """tests/conftest.py's rule (that module is shadowed here by tests/cli/conftest.py): skip
    when the service is down on a developer machine, fail in CI."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return
    except OSError:
        pass
    message = f"{name} is not reachable at {host}:{port}"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _store(url: str) -> Any:
    return anyio.run(check_store, url)


def test_doctor_lists_every_part_and_exits_0_when_nothing_fails(project: Path) -> None:
    result = runner.invoke(app, ["doctor", "--json"])
    checks = json.loads(result.stdout)
    names = ["store", "sandbox", "protected", "web", "chromium", "node", "search"]
    assert [c["name"] for c in checks] == names
    assert checks[0]["status"] == "ok"
    assert result.exit_code == (1 if any(c["status"] == "fail" for c in checks) else 0)
    for check in checks:
        assert check["status"] in ("ok", "warn", "fail", "skip")
        assert (check["fix"] is None) == (check["status"] in ("ok", "skip"))


def test_an_unreachable_store_fails_with_its_fix(project: Path) -> None:
    port = _free_port()
    (project / "toolwire.toml").write_text(f'[store]\nurl = "redis://127.0.0.1:{port}/0"\n')
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 1
    text = " ".join(result.stdout.split())
    assert f"FAIL store redis://127.0.0.1:{port}/0" in text
    assert "fix: start Redis" in text


def test_strict_fails_on_warnings_too(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(project))  # no node, no Chromium on this PATH
    relaxed = runner.invoke(app, ["doctor"])
    strict = runner.invoke(app, ["doctor", "--strict"])
    assert "warn  node" in relaxed.stdout
    assert relaxed.exit_code == 0
    assert strict.exit_code == 1


def test_a_sqlite_file_is_opened_and_written(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/state.db"
    first = _store(url)
    assert (first.status, first.detail) == ("ok", f"{url} (created on first use)")
    assert not (tmp_path / "state.db").exists()  # the check creates nothing
    (tmp_path / "state.db").touch()
    assert _store(url).status == "ok"
    assert "reachable" in _store(url).detail


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_sqlite_file_in_a_read_only_directory_fails(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        check = _store(f"sqlite:///{locked}/sub/state.db")
    finally:
        locked.chmod(0o700)
    assert check.status == "fail"
    assert "not writable" in check.detail


def test_the_real_redis_is_reachable() -> None:
    require_service("Redis", "127.0.0.1", 6379)
    check = _store("redis://127.0.0.1:6379/0")
    assert check.status == "ok", check.detail


def test_the_real_postgres_is_reachable() -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    check = _store("postgresql://postgres@127.0.0.1:5432/test")
    assert check.status == "ok", check.detail


def test_a_wrong_postgres_database_fails_with_the_reason() -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    check = _store("postgresql://postgres:hunter2@127.0.0.1:5432/no_such_database_here")
    assert check.status == "fail"
    assert "no_such_database_here" in check.detail
    assert "hunter2" not in check.detail + (check.fix or "")
    assert "fix" not in check.detail


def test_passwords_are_never_shown() -> None:
    assert shown_url("redis://:s3cret@host:6379/0") == "redis://:***@host:6379/0"
    assert shown_url("memory://") == "memory://"


def test_the_sandbox_check_follows_the_probe_and_the_mode() -> None:
    config = ToolwireConfig()
    check = check_sandbox(config)
    if shutil.which("bwrap") is None:
        assert check.status == "warn"
        assert check.fix is not None
        assert "apt-get install bubblewrap" in check.fix
    else:
        assert check.status in ("ok", "warn")
    off = check_sandbox(ToolwireConfig(sandbox=SandboxSettings(mode="off")))
    assert off.status == "skip"


def test_a_required_sandbox_that_cannot_run_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(doctor_checks, "_probe_bubblewrap", lambda: (False, "bwrap is missing"))
    required = check_sandbox(ToolwireConfig(sandbox=SandboxSettings(mode="required")))
    auto = check_sandbox(ToolwireConfig())
    assert (required.status, auto.status) == ("fail", "warn")
    assert required.detail == "required, but bwrap is missing"
    assert "commands run without a sandbox" in auto.detail


def test_the_sandbox_mode_comes_from_the_config_file(project: Path) -> None:
    (project / "toolwire.toml").write_text('[store]\nurl = "memory://"\n[sandbox]\nmode = "off"\n')
    result = runner.invoke(app, ["doctor", "--json"])
    sandbox = next(c for c in json.loads(result.stdout) if c["name"] == "sandbox")
    assert sandbox == {
        "name": "sandbox",
        "status": "skip",
        "detail": "off in the configuration",
        "fix": None,
    }


def test_node_is_found_with_its_version() -> None:
    if shutil.which("node") is None:
        pytest.fail("node is missing") if IN_CI else pytest.skip("node is not installed here")
    check = check_node(ToolwireConfig())
    assert check.status == "ok"
    assert check.detail.startswith("v")


def test_missing_node_fails_when_an_mcp_server_needs_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    server = McpServerConfig(name="files", command="npx", args=("-y", "x"))
    needed = check_node(ToolwireConfig(mcp_servers=(server,)))
    optional = check_node(ToolwireConfig())
    assert (needed.status, optional.status) == ("fail", "warn")
    assert "files" in needed.detail


def test_chromium_is_reported_with_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("TOOLWIRE_CHROMIUM", raising=False)
    check = check_chromium(ToolwireConfig())
    assert check.status == "warn"
    assert check.fix is not None
    assert "apt-get install chromium" in check.fix
    monkeypatch.setenv("TOOLWIRE_CHROMIUM", "/nowhere/chromium")
    assert "/nowhere/chromium" in check_chromium(ToolwireConfig()).detail


def test_the_chromium_here_is_found_with_its_version() -> None:
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.fail("Chromium is missing: make sysdeps") if IN_CI else pytest.skip(
            "Chromium is not installed here"
        )
    check = check_chromium(ToolwireConfig())
    assert "Chromium" in check.detail
    assert check.status in ("ok", "warn")  # warn: Playwright is not installed


def test_a_configured_search_provider_needs_its_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    monkeypatch.delenv("TOOLWIRE_WEB_SEARCH_PROVIDER", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    brave: Any = SimpleNamespace(web_search={"provider": "brave"})
    missing = check_search(brave)
    assert missing.status == "fail"
    assert missing.fix is not None
    assert "BRAVE_API_KEY" in missing.fix
    monkeypatch.setenv("BRAVE_API_KEY", "x" * 20)
    assert check_search(brave).status == "ok"


def test_the_web_extra_here_is_reported_installed() -> None:
    check = check_web(ToolwireConfig())  # the test install has every extra
    assert (check.status, check.fix) == ("ok", None)


def test_a_key_in_the_refs_own_variable_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXA_API_KEY", raising=False)
    monkeypatch.delenv("TOOLWIRE_WEB_SEARCH_PROVIDER", raising=False)
    monkeypatch.setenv("HOME", "/nonexistent")
    exa = SimpleNamespace(web_search={"provider": "exa"})
    missing = check_search(exa)  # type: ignore[arg-type]
    assert missing.status == "fail"
    assert "toolwire secret set providers/exa/apiKey" in (missing.fix or "")
    monkeypatch.setenv("TOOLWIRE_SECRET_PROVIDERS_EXA_APIKEY", "k")
    assert check_search(exa).status == "ok"  # type: ignore[arg-type]


def test_a_key_in_the_vault_counts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("EXA_API_KEY", raising=False)
    monkeypatch.delenv("TOOLWIRE_WEB_SEARCH_PROVIDER", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    vault = tmp_path / ".toolwire" / "secrets"
    vault.mkdir(parents=True)
    (vault / "providers%2Fexa%2FapiKey").write_text("k")  # as VaultSecretsResolver names it
    assert check_search(SimpleNamespace(web_search={"provider": "exa"})).status == "ok"  # type: ignore[arg-type]


def test_keyless_and_unconfigured_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLWIRE_WEB_SEARCH_PROVIDER", raising=False)
    monkeypatch.delenv("TOOLWIRE_WEB_SEARCH_URL", raising=False)
    ddg: Any = SimpleNamespace(web_search={"provider": "duckduckgo"})
    searx: Any = SimpleNamespace(web_search={"provider": "searxng"})
    assert check_search(ddg).status == "ok"
    assert check_search(searx).status == "fail"
    assert (
        check_search(SimpleNamespace(web_search={"provider": "searxng", "url": "http://s"})).status
        == "ok"
    )  # type: ignore[arg-type]
    assert check_search(ToolwireConfig()).status == "skip"
    monkeypatch.setenv("TOOLWIRE_WEB_SEARCH_PROVIDER", "tavily")
    assert check_search(ToolwireConfig()).detail.startswith("tavily is configured")
