"""Stage 9, finish: what happens to a result before the caller gets it.

For a result the tool just produced: the tool's reducer (it sees errors too; one that raises
leaves the result as it was; a result over `REDUCE_OFF_LOOP_CHARS` is reduced in a worker
thread, so a slow reducer never stalls the event loop), the post-trim to the call's budget
(``\\n[truncated — N chars total]``), the cache store (successful, untrimmed results only),
``tool:post``, then the ``after_tool_call`` hooks. A cache hit takes the same path from the
trim on (it was reduced before it was stored, and it is not stored again), so a hook that
redacts or replaces results is never bypassed by the cache.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.context import ToolContext
from toolwire.execution.budget import trim_result
from toolwire.execution.cache import CacheKey
from toolwire.execution.handles import keep_trimmed
from toolwire.execution.hooks import AfterCall, ToolEvent
from toolwire.execution.settings import PipelineSettings
from toolwire.reducers._registry import ReducerContext, ToolResultReducer, safe_reduce
from toolwire.results import Ok, ToolResult
from toolwire.threads import run_in_worker
from toolwire.tools import Tool

__all__ = ["REDUCE_OFF_LOOP_CHARS", "Finishing", "finish", "is_large", "report", "settle"]

REDUCE_OFF_LOOP_CHARS = 64 * 1024
"""Successful results longer than this are reduced in a worker thread, off the event loop."""


@dataclass(eq=False, slots=True)
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

    tool: Tool
    call_id: str
    args: Mapping[str, Any]
    ctx: ToolContext
    budget: int
    duration_ms: float = 0.0
    cache_key: CacheKey | None = None
    from_cache: bool = False


def is_large(result: ToolResult) -> bool:
    """Whether ``result`` is reduced off the event loop (see `REDUCE_OFF_LOOP_CHARS`)."""
    return type(result) is Ok and len(result.value) > REDUCE_OFF_LOOP_CHARS


def settle(settings: PipelineSettings, done: Finishing, result: ToolResult) -> ToolResult:
    """Reduce, trim and store ``result`` on the event loop (for results that are not large)."""
    reducer = _reducer(settings, done)
    if reducer is not None:
        result = safe_reduce(reducer, result, _reducer_context(done))
    return _trim_and_store(settings, done, result)


async def settle_large(
    settings: PipelineSettings, done: Finishing, result: ToolResult
) -> ToolResult:
    """`settle`, with the reducer in a worker thread."""
    reducer = _reducer(settings, done)
    if reducer is not None:
        reduce = functools.partial(safe_reduce, reducer, result, _reducer_context(done))
        result = await run_in_worker(reduce)
    return _trim_and_store(settings, done, result)


def _reducer(settings: PipelineSettings, done: Finishing) -> ToolResultReducer | None:
    if done.from_cache or settings.reducers is None:
        return None  # a cache hit was reduced before it was stored
    return settings.reducers.get(done.tool.name)


def _reducer_context(done: Finishing) -> ReducerContext:
    return ReducerContext(args=done.args, turn_count=done.ctx.current_turn)


def _trim_and_store(settings: PipelineSettings, done: Finishing, result: ToolResult) -> ToolResult:
    tool = done.tool
    if settings.result_handles is not None and _over(result, done.budget):
        return result  # `finish` keeps it behind a handle (over budget: never cached)
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


def _over(result: ToolResult, budget: int) -> bool:
    return type(result) is Ok and len(result.value) > budget


async def finish(settings: PipelineSettings, done: Finishing, result: ToolResult) -> ToolResult:
    """`settle` (the trim keeping a handle, with `toolwire.execution.handles` configured), then
    `report` when there is anyone to report to."""
    if is_large(result):
        result = await settle_large(settings, done, result)
    else:
        result = settle(settings, done, result)
    handles = settings.result_handles
    if handles is not None and type(result) is Ok and len(result.value) > done.budget:
        backends = settings.backends
        factory = backends.kv_store_factory if backends is not None else None
        result = await keep_trimmed(handles, factory, done.tool, done.ctx, result, done.budget)
    hooks = settings.hooks
    if hooks.has_observers or hooks.has_after:
        return await report(settings, done, result)
    return result
