"""Small builders shared by the execution tests: tools that record, registries, one call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Ok, ToolResult
from toolwire.tools import Tool, define_tool

ANY_OBJECT: dict[str, Any] = {"type": "object"}

Body = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]


class Calls:
    """Records every execution: (tool name, arguments, the context the tool saw)."""

    def __init__(self) -> None:
        self.log: list[tuple[str, dict[str, Any], ToolContext]] = []

    @property
    def names(self) -> list[str]:
        return [name for name, _, _ in self.log]

    def tool(
        self,
        name: str,
        body: Body | None = None,
        *,
        schema: dict[str, Any] | None = None,
        **options: Any,
    ) -> Tool:
        """A tool that records its call, then runs ``body`` (default: ``Ok("<name> ok")``)."""

        async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
            self.log.append((name, dict(args), ctx))
            if body is None:
                return Ok(f"{name} ok")
            return await body(args, ctx)

        return define_tool(
            name=name,
            description=f"The {name} tool.",
            schema=schema if schema is not None else ANY_OBJECT,
            execute=execute,
            **options,
        )


def returning(value: str) -> Body:
    async def body(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return Ok(value)

    return body


def registry_with(*tools: Tool, **options: Any) -> ToolRegistry:
    options.setdefault("reducers", None)
    registry = ToolRegistry(**options)
    registry.register_all(tools)
    return registry


def ctx(**fields: Any) -> ToolContext:
    fields.setdefault("session_id", "s1")
    return ToolContext(**fields)


def calls(*names: str, args: Any = "{}") -> list[ToolCall]:
    return [ToolCall(id=f"c{i}", name=name, args=args) for i, name in enumerate(names)]


async def run(
    registry: ToolRegistry,
    names: Sequence[str],
    context: ToolContext | None = None,
    **kwargs: Any,
) -> list[CallOutcome]:
    return await registry.execute_parallel(calls(*names), context or ctx(), **kwargs)
