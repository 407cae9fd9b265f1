"""Registries whose ``run_code`` offers ``runtime="python"`` over a real bubblewrap sandbox."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from service_checks import missing_here
from toolwire.calls import CallOutcome
from toolwire.capabilities.kinds.process._backends import ProcessBackend
from toolwire.capabilities.kinds.process.sandbox import probe_bubblewrap
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.code_mode import CodeModeSettings, run_code_tool
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.stores._sqlite import SqliteKeyValueBackend
from toolwire.tools import Tool


def require_bwrap() -> None:
    """Skip on a developer machine without bubblewrap; fail in CI."""
    probe = probe_bubblewrap()
    if not probe.usable:
        missing_here(
            f"the sandbox cannot run here: {probe.reason}",
            "scripts/system-deps.sh installs bubblewrap",
        )


def python_registry(
    tmp_path: Path,
    tools: Iterable[Tool],
    *,
    processes: ProcessBackend | None = None,
    **settings: Any,
) -> ToolRegistry:
    """``tools`` and ``run_code`` (python runtime on) over a sandbox reaching ``tmp_path/work``."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    if processes is None:
        from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend

        processes = SandboxedProcessBackend()
    kv = SqliteKeyValueBackend(tmp_path / "kv.db")
    backends = CapabilityBackends(
        kv_store_factory=kv.scoped,
        processes=processes,
        fs_read=(str(work),),
        fs_write=(str(work),),
    )
    registry = ToolRegistry(backends=backends, reducers=None)
    registry.register_all(list(tools))
    options: dict[str, Any] = {"python_runtime": True, "timeout_s": 30.0, **settings}
    registry.register(run_code_tool(registry, CodeModeSettings(**options)))
    return registry


def ctx_in(tmp_path: Path) -> ToolContext:
    return ToolContext(session_id="s-py", working_dir=str(tmp_path / "work"))


async def run_py(registry: ToolRegistry, tmp_path: Path, code: str, **options: Any) -> CallOutcome:
    """One ``run_code(code, runtime="python")`` call."""
    args = {"code": code, "runtime": "python"}
    return await registry.execute("run_code", args, ctx_in(tmp_path), **options)
