"""One batch of calls through the fixed pipeline; every call ends in exactly one `CallOutcome`.

Per call, in this order (each early exit is a result, never an exception):

1. unknown tool → ``not_available`` (``Unknown tool: <name>``)
2. surface exclusion, toolset allowlist, MCP/plugin filters → ``not_available``
3. availability (``is_available()`` false or raising) → ``not_available``
4. capabilities declared but no backends configured → ``not_available`` (fail closed)
5. argument validation → ``input_invalid`` naming every bad field, never echoing values
6. ``before_tool_call`` hooks: deny → ``not_available``; replaced arguments are validated again
7. dry-run → a synthetic result; the tool never runs
8. result cache lookup (tools that opt in)
9. the call's budget: ``min(floor(total / n), max_result_chars)``
10. capability resolution: only the declared seams, scoped (a resolver failure denies)
11. execution, with the per-call timeout and the abort signal; an exception → ``execution_failed``
12. the tool's reducer (a reducer that raises leaves the result as it was)
13. post-trim of successful values: ``\\n[truncated — N chars total]``
14. cache store (successful, untrimmed results only)
15. ``after_tool_call`` hooks

Calls run concurrently, except that a ``sequential`` tool is a barrier: the calls before it
finish first, the calls after it start after it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ToolContext
from toolwire.execution.batch import Batch, exception_message
from toolwire.execution.budget import call_budget, split_budget, trim_result
from toolwire.execution.call_context import call_context
from toolwire.execution.dry_run import dry_run_result
from toolwire.execution.gates import FilterOptions, RegisteredTool, check_call
from toolwire.execution.running import belongs_to_caller, run_tool
from toolwire.hooks import AfterCall, BeforeCall, ToolEvent
from toolwire.reducers.registry import ReducerContext, safe_reduce
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.schema import ArgsInvalid
from toolwire.seams import Attachment

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["run_batch"]

logger = logging.getLogger("toolwire.execution")


def _as_call(raw: Any, index: int) -> ToolCall:
    """Accept a `ToolCall` or a mapping with ``id``/``name``/``args``; never raises."""
    if isinstance(raw, ToolCall):
        return raw
    if isinstance(raw, Mapping):
        args = raw.get("args", raw.get("arguments", "{}"))
        if not isinstance(args, str | Mapping):
            args = "" if args is None else args
        return ToolCall(
            id=str(raw.get("id", f"call_{index}")),
            name=str(raw.get("name", "")),
            args=args if isinstance(args, str | Mapping) else repr(args),
        )
    return ToolCall(id=f"call_{index}", name=f"<{type(raw).__name__}>", args="{}")


async def run_batch(
    registry: ToolRegistry,
    calls: Sequence[ToolCall | Mapping[str, Any]],
    ctx: ToolContext,
    allowed_tools: Sequence[str] | None,
    filters: FilterOptions | None,
    turn_attachments: Sequence[Attachment] | None,
) -> list[CallOutcome]:
    """Run ``calls`` and return one outcome per call, in input order."""
    normalised = [_as_call(raw, i) for i, raw in enumerate(calls)]
    if not normalised:
        return []
    limit = registry.max_concurrency
    batch = Batch(
        registry,
        ctx,
        None if allowed_tools is None else frozenset(allowed_tools),
        filters,
        tuple(turn_attachments or ()),
        split_budget(ctx.result_budget_chars, len(normalised)),
        anyio.CapacityLimiter(limit) if limit is not None else None,
    )
    try:
        if len(normalised) == 1:
            return [await _run_one(batch, normalised[0])]
        outcomes: list[CallOutcome | None] = [None] * len(normalised)
        for segment in _segments(registry, normalised):
            if len(segment) == 1:
                index, call = segment[0]
                outcomes[index] = await _run_one(batch, call)
                continue
            await _run_concurrently(batch, segment, outcomes)
        return [outcome for outcome in outcomes if outcome is not None]
    finally:
        batch.close()


def _segments(registry: ToolRegistry, calls: list[ToolCall]) -> list[list[tuple[int, ToolCall]]]:
    """Split the batch at sequential tools: each such call forms a segment of its own."""
    segments: list[list[tuple[int, ToolCall]]] = [[]]
    for index, call in enumerate(calls):
        entry = registry.entry(call.name) if isinstance(call.name, str) else None
        if entry is not None and entry.tool.sequential:
            segments.append([(index, call)])
            segments.append([])
        else:
            segments[-1].append((index, call))
    return [segment for segment in segments if segment]


async def _run_concurrently(
    batch: Batch, segment: list[tuple[int, ToolCall]], outcomes: list[CallOutcome | None]
) -> None:
    """Run a segment's calls at once. Each call answers for itself and never raises, so on
    asyncio a plain ``gather`` is as structured as a task group (an outer cancellation cancels
    every child) at a fraction of the cost per task; other backends use an anyio task group."""
    if asyncio._get_running_loop() is not None:  # on asyncio (trio has no asyncio loop)
        results = await asyncio.gather(*(_run_one(batch, call) for _, call in segment))
        for (index, _), outcome in zip(segment, results, strict=True):
            outcomes[index] = outcome
        return
    async with anyio.create_task_group() as group:
        for index, call in segment:
            group.start_soon(_run_into, batch, call, outcomes, index)


async def _run_into(
    batch: Batch, call: ToolCall, outcomes: list[CallOutcome | None], index: int
) -> None:
    outcomes[index] = await _run_one(batch, call)


async def _run_one(batch: Batch, call: ToolCall) -> CallOutcome:
    started = time.perf_counter()
    cached = False
    args: Mapping[str, Any] | None = None
    try:
        if batch.limiter is not None:
            async with batch.limiter:
                result, cached, args = await _pipeline(batch, call)
        else:
            result, cached, args = await _pipeline(batch, call)
    except BaseException as exc:  # a bug in a stage, or a hook's sys.exit(), still answers
        if belongs_to_caller(exc):
            raise
        logger.exception("toolwire pipeline failed on %s", call.name)
        result = Err(
            f"internal error while running {call.name}: {exception_message(exc)}",
            ErrorCode.EXECUTION_FAILED,
            cause=type(exc).__name__,
        )
    return CallOutcome(
        tool_call_id=call.id,
        name=call.name,
        result=result,
        duration_ms=(time.perf_counter() - started) * 1000.0,
        cached=cached,
        args=args,
    )


def _gate(batch: Batch, call: ToolCall) -> RegisteredTool | Err:
    entry = batch.registry.entry(call.name) if isinstance(call.name, str) else None
    if entry is None:
        return Err(f"Unknown tool: {call.name}", ErrorCode.NOT_AVAILABLE, reason="unknown_tool")
    denied = check_call(entry, batch.allowed, batch.filters)
    if denied is not None:
        return denied
    tool = entry.tool
    if tool.is_available is not None:
        try:
            available = bool(tool.is_available())
        except Exception:
            available = False
        if not available:
            return Err(
                f"Tool {tool.name} is not currently available",
                ErrorCode.NOT_AVAILABLE,
                reason="unavailable",
            )
    if not tool.capabilities.is_empty and batch.registry.backends is None:
        return Err(
            f"Tool {tool.name} declares capabilities but no capability backends are configured",
            ErrorCode.NOT_AVAILABLE,
            reason="no_backends",
        )
    return entry


def _validate(tool_name: str, validator: Any, raw: Any, preamble: str) -> dict[str, Any] | Err:
    try:
        return validator.validate(raw)  # type: ignore[no-any-return]
    except ArgsInvalid as exc:
        return Err(
            f"{preamble} for {tool_name}: {exc.detail}", ErrorCode.INPUT_INVALID, field=exc.field
        )
    except Exception as exc:  # a broken validator denies
        return Err(
            f"{preamble} for {tool_name}: the validator failed ({type(exc).__name__})",
            ErrorCode.INPUT_INVALID,
        )


async def _pipeline(
    batch: Batch, call: ToolCall
) -> tuple[ToolResult, bool, Mapping[str, Any] | None]:
    gated = _gate(batch, call)
    if isinstance(gated, Err):
        return gated, False, None
    tool = gated.tool
    registry = batch.registry
    ctx = batch.ctx
    args = _validate(tool.name, tool.validator, call.args, "Invalid arguments")
    if isinstance(args, Err):
        return args, False, None

    hooks = registry.hooks
    if hooks.has_before:
        decision = await hooks.run_before(
            BeforeCall(tool_name=tool.name, tool_call_id=call.id, args=args, ctx=ctx)
        )
        if decision.denied is not None:
            denied = Err(decision.denied, ErrorCode.NOT_AVAILABLE, reason="hook_denied")
            return denied, False, args
        if decision.args is not None:
            args = _validate(
                tool.name,
                tool.validator,
                dict(decision.args),
                "Arguments set by a hook are invalid",
            )
            if isinstance(args, Err):
                return args, False, None

    if ctx.dry_run:
        return dry_run_result(tool.name, args, registry.dry_run_redactor), False, args

    budget = call_budget(batch.per_call_budget, tool.max_result_chars)
    cache_key = None
    if tool.cache is not None:
        cache_key = registry.result_cache.key(tool.cache, ctx.session_id, ctx.personality_id, args)
        hit = registry.result_cache.get(tool.name, cache_key)
        if hit is not None:
            # Stored under another call's budget: trim to this one's. The after-hooks still see
            # it, so a hook that redacts or replaces results is not bypassed by the cache.
            result, _ = trim_result(hit, budget)
            if hooks.has_after:
                result = await hooks.run_after(
                    AfterCall(
                        tool_name=tool.name,
                        tool_call_id=call.id,
                        args=args,
                        result=result,
                        duration_ms=0.0,
                        ctx=ctx.derive(result_budget_chars=budget, tool_call_id=call.id),
                    )
                )
            return result, True, args

    call_ctx = await call_context(batch, tool.name, tool.capabilities, call.id, budget)
    if isinstance(call_ctx, Err):
        return call_ctx, False, args

    started = time.perf_counter()
    if hooks.has_observers:
        await hooks.emit(
            ToolEvent(
                name="tool:pre", tool_name=tool.name, tool_call_id=call.id, data={"input": args}
            )
        )
    result, failure = await run_tool(batch, tool, args, call_ctx)
    if failure is not None and hooks.has_observers:
        await hooks.emit(
            ToolEvent(
                name="tool:error",
                tool_name=tool.name,
                tool_call_id=call.id,
                data={"error": failure},
            )
        )

    reducer = registry.reducers.get(tool.name) if registry.reducers is not None else None
    if reducer is not None:
        result = safe_reduce(
            reducer, result, ReducerContext(args=args, turn_count=ctx.current_turn)
        )
    result, truncated = trim_result(result, budget)

    if (
        cache_key is not None
        and tool.cache is not None
        and isinstance(result, Ok)
        and not truncated
    ):
        registry.result_cache.put(tool.name, cache_key, result, tool.cache)

    duration_ms = (time.perf_counter() - started) * 1000.0
    if hooks.has_observers:
        await hooks.emit(
            ToolEvent(
                name="tool:post",
                tool_name=tool.name,
                tool_call_id=call.id,
                data={"result": result, "duration_ms": duration_ms},
            )
        )
    if hooks.has_after:
        result = await hooks.run_after(
            AfterCall(
                tool_name=tool.name,
                tool_call_id=call.id,
                args=args,
                result=result,
                duration_ms=duration_ms,
                ctx=call_ctx,
            )
        )
    return result, False, args
