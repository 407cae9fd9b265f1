"""Helpers for the code tool tests: tiny projects on disk, a registry over them, one call."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service_checks import missing_here
from toolwire.capabilities.kinds.process._backends import LocalProcessBackend
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.toolbox.code import CodeSettings, Toolchains, code_tools

REPO = Path(__file__).resolve().parents[3]

PYTEST_OPTIONS = (
    '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-p no:amplifier_module"\n'
)
"""The test projects' pytest settings: the pytest beside toolwire has amplifier-core's plugin,
which needs pytest-asyncio (toolwire's own suite turns it off the same way)."""


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path → text) under ``root``; returns ``root``."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def code_registry(
    read: Sequence[Path],
    write: Sequence[Path] | None = None,
    toolchains: Toolchains | None = None,
    settings: CodeSettings | None = None,
) -> ToolRegistry:
    """The code tools over an unsandboxed local process backend, reaching ``read`` (and
    ``write``, default the same)."""
    backends = CapabilityBackends(
        fs_read=tuple(str(p) for p in read),
        fs_write=tuple(str(p) for p in (read if write is None else write)),
        processes=LocalProcessBackend(),
    )
    registry = ToolRegistry(backends=backends)
    registry.register_all(code_tools(toolchains, settings))
    return registry


async def call(
    registry: ToolRegistry, root: Path, name: str, budget: int | None = None, **args: Any
) -> ToolResult:
    """Run one code tool call with ``root`` as the working directory."""
    options: dict[str, Any] = {"session_id": "s1", "working_dir": str(root)}
    if budget is not None:
        options["result_budget_chars"] = budget
    outcome = await registry.execute(name, args, ToolContext(**options))
    return outcome.result


@dataclass(frozen=True, kw_only=True, slots=True)
class Checked:
    """A successful code tool result: its text and its (always present) ``structured``."""

    value: str
    structured: dict[str, Any]


def ok_of(result: ToolResult) -> Checked:
    """The ``Ok``'s text and ``structured``; fails the test otherwise."""
    assert isinstance(result, Ok), result
    assert result.structured is not None
    return Checked(value=result.value, structured=result.structured)


def err_of(result: ToolResult) -> Err:
    """The ``Err``; fails the test when the call succeeded."""
    assert isinstance(result, Err), result
    return result


def require_binary(name: str) -> str:
    """Where ``name`` is (the code tools' default search path); skip, or fail under CI=true."""
    toolchains = Toolchains()
    found = toolchains.which(name, toolchains.dirs())
    if found is not None:
        return found
    return missing_here(
        f"{name} is not installed",
        "scripts/system-deps.sh (make sysdeps) installs the toolchains",
    )


def node_tools() -> Path:
    """The pinned npm tools (scripts/node-tools.sh), installed once; their node_modules."""
    require_binary("node")
    if shutil.which("npm") is None:
        missing_here("npm is not installed")
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "node-tools.sh")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        missing_here(f"scripts/node-tools.sh failed: {done.stderr[-2000:]}")
    return Path(done.stdout.strip().splitlines()[-1]) / "node_modules"


RUST_CRATE = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "pub fn add(a: i32, b: i32) -> i32 {\n"
        "    let unused = 3;\n"
        "    a + b\n"
        "}\n\n"
        "#[cfg(test)]\n"
        "mod tests {\n"
        "    use super::*;\n\n"
        "    #[test]\n"
        "    fn adds() {\n"
        "        assert_eq!(add(1, 2), 3);\n"
        "    }\n\n"
        "    #[test]\n"
        "    fn fails() {\n"
        '        assert_eq!(add(1, 2), 4, "math is off");\n'
        "    }\n\n"
        "    #[test]\n"
        "    #[ignore]\n"
        "    fn later() {}\n"
        "}\n"
    ),
    "tests/it.rs": (
        "use demo::add;\n\n#[test]\nfn integration() {\n    assert_eq!(add(2, 2), 4);\n}\n"
    ),
}
"""A crate with a warning, a passing, a failing and an ignored unit test, and an
integration test."""
