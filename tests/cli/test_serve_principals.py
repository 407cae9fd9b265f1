"""``[serve] stateless_sessions`` and ``max_sessions_per_principal``: read from toolwire.toml
into `ServeOptions`, a bad value named with its line, and the serve banner saying loudly when
2026-07-28 clients share one session."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.cli.serving import _serve_options, banner_lines
from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.wiring import open_registry

pytestmark = pytest.mark.anyio


def _config_file(tmp_path: Path, serve: str) -> Path:
    file = tmp_path / "toolwire.toml"
    file.write_text('[store]\nurl = "memory://"\n[serve]\n' + serve)
    return file


def test_each_credential_has_its_own_stateless_session_by_default(tmp_path: Path) -> None:
    options = _serve_options(load_config(_config_file(tmp_path, ""), env={}))
    assert options.stateless_sessions == "per_principal"
    assert options.max_sessions_per_principal == 100


def test_the_config_file_sets_both(tmp_path: Path) -> None:
    body = 'stateless_sessions = "shared"\nmax_sessions_per_principal = 7\n'
    options = _serve_options(load_config(_config_file(tmp_path, body), env={}))
    assert options.stateless_sessions == "shared"
    assert options.max_sessions_per_principal == 7


def test_an_unknown_mode_is_refused_with_its_line(tmp_path: Path) -> None:
    file = _config_file(tmp_path, 'stateless_sessions = "everyone"\n')
    with pytest.raises(ConfigurationError, match=r"toolwire.toml:4: serve.stateless_sessions"):
        load_config(file, env={})


@pytest.mark.parametrize(("mode", "loud"), [("per_principal", False), ("shared", True)])
async def test_the_banner_says_who_shares_a_session(tmp_path: Path, mode: str, loud: bool) -> None:
    file = _config_file(tmp_path, f'stateless_sessions = "{mode}"\n')
    async with open_registry(load_config(file, env={})) as wired:
        lines = banner_lines(wired, "http://127.0.0.1:8765/mcp")
    sessions = [(line, is_loud) for line, is_loud in lines if line.startswith("  sessions ")]
    assert len(sessions) == 1
    assert sessions[0][1] is loud
    assert ("ONE session" in sessions[0][0]) is loud
