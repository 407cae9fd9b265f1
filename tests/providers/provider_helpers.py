"""Small real tools and providers shared by the provider tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import anyio.lowlevel

from toolwire.context import ToolContext
from toolwire.providers import ProviderContext, ProviderEvent
from toolwire.results import ToolResult, ok
from toolwire.tools import Tool, define_tool


def make_tool(name: str, *, description: str = "", reply: str | None = None) -> Tool:
    """A tool that answers ``reply`` (default: its own name)."""
    answer = reply if reply is not None else name

    async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ok(answer)

    return define_tool(
        name=name,
        description=description or f"the {name} tool",
        schema={"type": "object", "properties": {}},
        execute=execute,
    )


def make_tools(*names: str) -> list[Tool]:
    return [make_tool(name) for name in names]


def names(tools: Sequence[Tool]) -> list[str]:
    return [tool.name for tool in tools]


class EventLog(list[ProviderEvent]):
    """Collects provider events; pass the instance as ``on_event``."""

    def __call__(self, event: ProviderEvent) -> None:
        self.append(event)


class AsyncProvider:
    """A discovery-style provider: ``list`` is a coroutine; counts how often it really ran."""

    def __init__(self, tools: Sequence[Tool], *, id: str = "hub") -> None:
        self.tools = list(tools)
        self.id = id
        self.runs = 0
        self.gate: anyio.Event | None = None
        self.error: Exception | None = None

    async def list(self, ctx: ProviderContext) -> list[Tool]:
        self.runs += 1
        if self.gate is not None:
            await self.gate.wait()
        else:
            await anyio.lowlevel.checkpoint()
        if self.error is not None:
            raise self.error
        return list(self.tools)


class SyncProvider:
    """A synchronous provider with a call counter and an optional error."""

    def __init__(self, tools: Sequence[Tool], *, id: str = "sync") -> None:
        self.tools = list(tools)
        self.id = id
        self.calls = 0
        self.error: Exception | None = None

    def list(self, ctx: ProviderContext) -> list[Tool]:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return list(self.tools)
