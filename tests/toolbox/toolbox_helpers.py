"""Helpers for the built-in tool tests: run one call, unwrap its result, gate a read."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.toolbox import file_tools
from toolwire.tools import Tool


async def run(registry: ToolRegistry, ctx: ToolContext, name: str, **args: Any) -> ToolResult:
    """Run one call through the whole pipeline and return its result."""
    outcome = await registry.execute(name, args, ctx)
    return outcome.result


def ok_value(result: ToolResult) -> str:
    """The value of an ``Ok``; fails the test with the error otherwise."""
    assert isinstance(result, Ok), result
    return result.value


def error_of(result: ToolResult) -> Err:
    """The ``Err``; fails the test when the call succeeded."""
    assert isinstance(result, Err), result
    return result


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def unique_sleep() -> str:
    """A ``sleep`` duration no other process uses: ``300.<random digits>``."""
    return f"300.{uuid.uuid4().int % 10**12:012d}"


async def read_pid(path: Path) -> int:
    """The pid a command wrote to ``path``, once it is there."""
    target = anyio.Path(path)
    with anyio.fail_after(10):
        while not await target.exists() or not (await target.read_text()).strip():
            await anyio.sleep(0.02)
    return int(await target.read_text())


class GatedFs(ReachScopedFs):
    """A real `ReachScopedFs` whose reads of the files in ``gated`` stop at a gate: the read
    sets ``entered`` and goes on only when the test sets ``release``."""

    def __init__(self, root: Path, *gated: Path) -> None:
        super().__init__([str(root)], [str(root)])
        self.gated = {str(path) for path in gated}
        self.entered = anyio.Event()
        self.release = anyio.Event()

    async def read_bytes(self, path: str) -> bytes:
        if path in self.gated:
            self.entered.set()
            await self.release.wait()
        return await super().read_bytes(path)


def file_registry(read: Sequence[str], write: Sequence[str] = ()) -> ToolRegistry:
    """The file tools over backends reaching exactly ``read`` and ``write``."""
    registry = ToolRegistry(backends=CapabilityBackends(fs_read=tuple(read), fs_write=tuple(write)))
    registry.register_all(file_tools())
    return registry


def start_call(group: TaskGroup, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> list[Any]:
    """Start ``tool`` on ``args`` in ``group``; the returned list receives its result."""
    results: list[Any] = []

    async def call() -> None:
        results.append(await tool.execute(args, ctx))

    group.start_soon(call)
    return results
