"""Helpers for the built-in tool tests: run one call, unwrap its result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult


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


async def read_pid(path: Path) -> int:
    """The pid a command wrote to ``path``, once it is there."""
    target = anyio.Path(path)
    with anyio.fail_after(10):
        while not await target.exists() or not (await target.read_text()).strip():
            await anyio.sleep(0.02)
    return int(await target.read_text())
