"""Stage 9, finish: what happens to a result before the caller gets it.

For a result the tool just produced: the tool's reducer (it sees errors too; one that raises
leaves the result as it was), the post-trim to the call's budget
(``\\n[truncated — N chars total]``), the cache store (successful, untrimmed results only),
``tool:post``, then the ``after_tool_call`` hooks. A cache hit takes the same path from the
trim on (it was reduced before it was stored, and it is not stored again), so a hook that
redacts or replaces results is never bypassed by the cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.context import ToolContext
from toolwire.execution.budget import trim_result
from toolwire.execution.cache import CacheKey
from toolwire.execution.hooks import AfterCall, ToolEvent
from toolwire.execution.settings import PipelineSettings
from toolwire.reducers.registry import ReducerContext, safe_reduce
from toolwire.results import Ok, ToolResult
from toolwire.tools import Tool

__all__ = ["Finishing", "finish", "report", "settle"]


class Finishing:
    """One call's result on its way out (a private per-call record, built on the hot path).

    Attributes:
        tool: The tool that ran (or whose cached result this is).
        call_id: The call's id.
        args: The arguments it ran with.
        ctx: The call's context.
        budget: The call's share of the output budget.
        duration_ms: How long the tool ran (0 for a cache hit).
        cache_key: Where to store the result, for a tool that opted in.
        from_cache: The result is a cache hit.
    """

    __slots__ = (
        "args",
        "budget",
        "cache_key",
        "call_id",
        "ctx",
        "duration_ms",
        "from_cache",
        "tool",
    )

    def __init__(
        self,
        tool: Tool,
        call_id: str,
        args: Mapping[str, Any],
        ctx: ToolContext,
        budget: int,
        duration_ms: float = 0.0,
        cache_key: CacheKey | None = None,
        from_cache: bool = False,
    ) -> None:
        self.tool = tool
        self.call_id = call_id
        self.args = args
        self.ctx = ctx
        self.budget = budget
        self.duration_ms = duration_ms
        self.cache_key = cache_key
        self.from_cache = from_cache


def settle(settings: PipelineSettings, done: Finishing, result: ToolResult) -> ToolResult:
    """Reduce, trim and store ``result`` (the part of `finish` that never waits)."""
    tool = done.tool
    if not done.from_cache:
        reducer = settings.reducers.get(tool.name) if settings.reducers is not None else None
        if reducer is not None:
            context = ReducerContext(args=done.args, turn_count=done.ctx.current_turn)
            result = safe_reduce(reducer, result, context)
    result, truncated = trim_result(result, done.budget)
    policy = tool.cache
    if (
        done.cache_key is not None
        and policy is not None
        and isinstance(result, Ok)
        and not truncated
        and not done.from_cache
    ):
        settings.result_cache.put(tool.name, done.cache_key, result, policy)
    return result


async def report(settings: PipelineSettings, done: Finishing, result: ToolResult) -> ToolResult:
    """``tool:post`` to the observers, then the after-hooks (which may replace the result)."""
    hooks = settings.hooks
    tool = done.tool
    if hooks.has_observers and not done.from_cache:
        await hooks.emit(
            ToolEvent(
                name="tool:post",
                tool_name=tool.name,
                tool_call_id=done.call_id,
                data={"result": result, "duration_ms": done.duration_ms},
            )
        )
    if not hooks.has_after:
        return result
    return await hooks.run_after(
        AfterCall(
            tool_name=tool.name,
            tool_call_id=done.call_id,
            args=done.args,
            result=result,
            duration_ms=done.duration_ms,
            ctx=done.ctx,
        )
    )


async def finish(settings: PipelineSettings, done: Finishing, result: ToolResult) -> ToolResult:
    """`settle`, then `report` when there is anyone to report to."""
    result = settle(settings, done, result)
    hooks = settings.hooks
    if hooks.has_observers or hooks.has_after:
        return await report(settings, done, result)
    return result
