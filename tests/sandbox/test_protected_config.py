"""The protected paths as configured: ``[sandbox] protected`` adds, ``unprotect`` removes and the
serve banner says so loudly, ``toolwire doctor`` lists them, the config file in use is among
them, and what toolwire runs from cannot be unprotected (issue 21)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolwire.cli.doctor_checks import check_protected
from toolwire.cli.serving import banner_lines
from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.safety.protected_paths import protected_paths, runtime_paths
from toolwire.wiring import open_registry

pytestmark = pytest.mark.anyio


def _config_file(tmp_path: Path, body: str) -> Path:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    file = project / "agent.toml"
    file.write_text('[store]\nurl = "memory://"\n[sandbox]\n' + body)
    return file


async def test_the_config_file_in_use_is_protected_whatever_its_name(tmp_path: Path) -> None:
    file = _config_file(tmp_path, "")
    async with open_registry(load_config(file, env={})) as wired:
        protected = wired.backends.protected_paths
        assert protected is not None
        assert protected.reason(str(file)) is not None
        assert protected.reason(str(file.parent / "notes.md")) is None


async def test_unprotect_removes_a_name_and_the_banner_says_so(tmp_path: Path) -> None:
    file = _config_file(tmp_path, 'unprotect = [".git"]\nprotected = ["deploy"]\n')
    async with open_registry(load_config(file, env={})) as wired:
        protected = wired.backends.protected_paths
        assert protected is not None
        lines = banner_lines(wired, "stdio")
    assert ".git" not in protected.names
    assert ".git/hooks" in protected.names
    assert "deploy" in protected.names
    loud = [line for line, is_loud in lines if is_loud]
    assert any("UNPROTECTED by [sandbox] unprotect: .git" in line for line in loud)


async def test_the_banner_is_quiet_when_nothing_was_unprotected(tmp_path: Path) -> None:
    file = _config_file(tmp_path, "")
    async with open_registry(load_config(file, env={})) as wired:
        lines = banner_lines(wired, "stdio")
    protect = [(line, loud) for line, loud in lines if line.startswith("  protect")]
    assert len(protect) == 1
    assert not protect[0][1]
    assert "UNPROTECTED" not in protect[0][0]


def test_unprotecting_what_toolwire_runs_from_is_refused_with_the_line(tmp_path: Path) -> None:
    file = _config_file(tmp_path, f'unprotect = ["{sys.prefix}"]\n')
    with pytest.raises(ConfigurationError, match=r"agent\.toml:4: sandbox\.unprotect"):
        load_config(file, env={})


def test_doctor_lists_the_protected_paths(tmp_path: Path) -> None:
    file = _config_file(tmp_path, "")
    check = check_protected(load_config(file, env={}))
    assert check.status == "ok"
    for entry in (".git/hooks", "toolwire.toml", "~/.bashrc", str(file), sys.prefix):
        assert entry in check.detail


def test_doctor_warns_about_what_was_unprotected(tmp_path: Path) -> None:
    file = _config_file(tmp_path, 'unprotect = [".vscode", "~/.bashrc"]\n')
    check = check_protected(load_config(file, env={}))
    assert check.status == "warn"
    assert "UNPROTECTED by [sandbox] unprotect: .vscode, .bashrc" in check.detail


def test_runtime_paths_hold_the_interpreter_the_virtualenv_and_the_package() -> None:
    import toolwire

    paths = runtime_paths()
    assert sys.prefix in paths
    assert str(Path(sys.executable).resolve()) in paths
    assert str(Path(toolwire.__file__).resolve().parent) in paths


def test_names_match_at_any_depth_in_any_letter_case() -> None:
    protected = protected_paths()
    assert protected.reason("/w/a/.GIT/Hooks/pre-commit") is not None
    assert protected.reason("/w/sub/toolwire.toml") is not None
    assert protected.reason("/w/.gitignore") is None
    assert protected.reason("/w/src/git/hooks.py") is None
    assert protected.reason("/h/.bashrc", home="/h") is not None
    assert protected.reason("/w/.bashrc", home="/h") is None  # only in the home directory
