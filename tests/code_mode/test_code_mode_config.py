"""``[flow]`` and ``[code_mode]`` in ``toolwire.toml`` (`toolwire.config._code_mode`): parsed into
the config, every mistake named with its file and line, and wired into the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.code_mode import CodeModeSettings
from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.wiring import create_registry, open_registry


def config_of(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "toolwire.toml"
    path.write_text(text)
    return path


@pytest.mark.anyio
async def test_the_tables_become_the_policy_and_the_settings(tmp_path: Path) -> None:
    text = '[flow]\nafter_untrusted = "refuse"\n[code_mode]\nenabled = true\ntimeout_s = 30\n'
    config = load_config(config_of(tmp_path, text), env={})
    assert config.after_untrusted == "refuse"
    assert config.code_mode == CodeModeSettings(timeout_s=30.0, after_untrusted="refuse")
    registry = create_registry(config)
    assert registry.settings.approvals is not None
    assert registry.settings.approvals.after_untrusted == "refuse"
    await registry.aclose()


def test_the_python_runtime_keys_become_its_settings(tmp_path: Path) -> None:
    text = (
        "[code_mode]\nenabled = true\npython_runtime = true\npython_unsandboxed = true\n"
        'python_executable = "/usr/local/bin/python3"\npython_hosts = ["pypi.org"]\n'
        "python_max_frame_bytes = 1024\n"
    )
    config = load_config(config_of(tmp_path, text), env={})
    assert config.code_mode == CodeModeSettings(
        python_runtime=True,
        python_unsandboxed=True,
        python_executable="/usr/local/bin/python3",
        python_hosts=("pypi.org",),
        python_max_frame_bytes=1024,
    )


@pytest.mark.anyio
async def test_max_stub_chars_defers_a_catalogue_whose_stubs_pass_it(tmp_path: Path) -> None:
    text = "[code_mode]\nenabled = true\nmax_stub_chars = 100\n"
    config = load_config(config_of(tmp_path, text), env={})
    assert config.code_mode is not None
    assert config.code_mode.max_stub_chars == 100
    async with open_registry(config) as wired:
        shown = {d["name"] for d in wired.registry.definitions()}
    assert "run_code" in shown
    assert "tool_search" in shown
    assert "read_file" not in shown  # found through tool_search, its stubs with it


def test_without_the_tables_sinks_ask_and_run_code_is_not_served(tmp_path: Path) -> None:
    config = load_config(config_of(tmp_path, "[code_mode]\ntimeout_s = 30\n"), env={})
    assert config.after_untrusted == "approve"
    assert config.code_mode is None  # not enabled


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[flow]\nafter_untrusted = "ask"\n',
            "toolwire.toml:2: flow.after_untrusted: expected one",
        ),
        ("[flow]\npolicy = 1\n", "toolwire.toml:2: flow.policy"),
        ("flow = 3\n", "toolwire.toml:1: flow: expected a table"),
        ('[code_mode]\nenabled = "yes"\n', "toolwire.toml:2: code_mode.enabled: expected true"),
        ("[code_mode]\nmax_inner_calls = 0\n", "code_mode.max_inner_calls: expected an integer"),
        ("[code_mode]\ncpu_time_s = true\n", "code_mode.cpu_time_s: expected seconds"),
        ("[code_mode]\nafter_untrusted = 'allow'\n", "toolwire.toml:2: code_mode.after_untrusted"),
        ("[code_mode]\npython_runtime = 1\n", "code_mode.python_runtime: expected true"),
        ("[code_mode]\npython_executable = 'python3'\n", "code_mode.python_executable"),
        ("[code_mode]\npython_hosts = 'x.org'\n", "code_mode.python_hosts: expected a list"),
        ("[code_mode]\npython_max_frame_bytes = 0\n", "code_mode.python_max_frame_bytes"),
    ],
)
def test_mistakes_name_the_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message.replace(".", r"\.")):
        load_config(config_of(tmp_path, text), env={})
