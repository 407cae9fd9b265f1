"""The code tools in a real bubblewrap sandbox: the checkers found when the tools are built are
visible inside it (read-only), and a checker the sandbox cannot show is named with where it
is and what the sandbox shows."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from code_projects import call, err_of, ok_of, write_tree

from service_checks import missing_here
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.process.sandbox import SandboxLimits, probe_bubblewrap
from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.registry import ToolRegistry
from toolwire.toolbox.code import Toolchains, code_tools
from toolwire.toolbox.code._failures import TOOL_NOT_INSTALLED
from toolwire.toolbox.code.sandbox_roots import checker_roots

pytestmark = pytest.mark.anyio

REPORT = (
    '[{"filename": "a.py", "location": {"row": 1, "column": 1}, "code": "X1", '
    '"message": "from the toolchain ruff", "fix": null}]'
)
RUFF = (  # bash builtins only: the sandbox shows /bin, and the ruff's own directory
    "#!/bin/bash\nout=/dev/stdout\n"
    'while [ $# -gt 0 ]; do [ "$1" = --output-file ] && out=$2; shift; done\n'
    f"printf '%s' '{REPORT}' > \"$out\"\nexit 1\n"
)


def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def sandboxed() -> None:
    probe = probe_bubblewrap()
    if not probe.usable:
        missing_here(f"the sandbox cannot run here: {probe.reason}", "system-deps.sh")


def _registry(work: Path, toolchains: Toolchains) -> ToolRegistry:
    """The code tools over a real sandbox whose file reach is ``work`` only."""
    manager = ProcessManager(str(work.parent / "procs"), stop_grace_s=1.0)
    backends = CapabilityBackends(
        fs_read=(str(work),),
        fs_write=(str(work),),
        processes=SandboxedProcessBackend(manager, limits=SandboxLimits()),
    )
    registry = ToolRegistry(backends=backends)
    registry.register_all(code_tools(toolchains))
    return registry


async def test_a_checker_outside_the_reach_runs_in_the_sandbox(
    tmp_path: Path, sandboxed: None
) -> None:
    tools = tmp_path / "toolchain" / "bin"  # like a virtualenv's bin beside toolwire
    _executable(tools / "ruff", RUFF)
    work = write_tree(tmp_path / "work", {"pyproject.toml": "", "a.py": "x = 1\n"})
    async with _registry(work, Toolchains(search_dirs=(str(tools),))) as registry:
        result = ok_of(await call(registry, work, "lint"))
    assert result.structured["diagnostics"][0]["message"] == "from the toolchain ruff"


async def test_a_checker_the_sandbox_cannot_show_is_named_with_what_it_shows(
    tmp_path: Path, sandboxed: None
) -> None:
    tools = tmp_path / "toolchain" / "bin"
    tools.mkdir(parents=True)
    work = write_tree(tmp_path / "work", {"pyproject.toml": "", "a.py": "x = 1\n"})
    async with _registry(work, Toolchains(search_dirs=(str(tools),))) as registry:
        _executable(tools / "ruff", RUFF)  # installed after the tools were built
        error = err_of(await call(registry, work, "lint"))
    assert error.reason == TOOL_NOT_INSTALLED
    assert error.error.startswith(
        f"ruff is installed at {tools / 'ruff'} but could not be started in the sandbox ("
    )
    assert "A sandboxed command sees only the system (/usr, /bin, /lib*, /etc, /opt)" in (
        error.error
    )


def test_checker_roots_hold_a_virtualenv_and_its_base_interpreter(tmp_path: Path) -> None:
    base = tmp_path / "pythons" / "3.11"
    _executable(base / "bin" / "python3", "#!/bin/sh\n")
    venv = tmp_path / "tools-venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\nversion = 3.11.7\n")
    os.symlink(base / "bin" / "python3", venv / "bin" / "python")
    _executable(venv / "bin" / "mypy", f"#!{venv / 'bin' / 'python'}\nimport mypy\n")
    roots = checker_roots(["mypy", "not-a-checker"], [str(venv / "bin")])
    assert str(venv) in roots  # its bin, its lib/site-packages
    assert str(base) in roots  # the interpreter the venv's python links to
    assert str(venv / "bin") not in roots  # inside the venv: one root is enough
