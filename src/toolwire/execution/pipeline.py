"""`Pipeline`: one batch of calls through the stages; every call ends in exactly one outcome.

```
admit → validate → before-hooks → dry-run → cache → budget → resolve → run → finish
```

Each stage is a module of this package; an early exit is a result, never an exception. Calls
run concurrently, except that a ``sequential`` tool is a barrier: the calls before it finish
first, the calls after it start after it. A stage that breaks (a bug, a hook calling
``sys.exit()``) answers its own call ``execution_failed``; only a cancellation of the caller's
own passes through.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeAlias

import anyio

from toolwire.calls import CallOutcome, ToolCall, make_outcome
from toolwire.capabilities.seams import Attachment
from toolwire.context import ToolContext
from toolwire.execution.admit import Admission, admit
from toolwire.execution.approvals import SpentApproval, needs_approval, take_approval
from toolwire.execution.batch import (
    CURRENT_BATCH,
    TRACKING,
    Batch,
    exception_message,
    seam_reset,
)
from toolwire.execution.before import run_before_hooks
from toolwire.execution.budget import call_budget, split_budget, trim_result
from toolwire.execution.cache import look_up
from toolwire.execution.dispatch import dispatch
from toolwire.execution.dry_run import dry_run_result
from toolwire.execution.finish import Finishing, finish
from toolwire.execution.flow import record_untrusted, sink_rule
from toolwire.execution.gates import RegisteredTool
from toolwire.execution.handles import keep_trimmed
from toolwire.execution.interrupts import is_closing
from toolwire.execution.resolve import call_context, plain_call_context
from toolwire.execution.run import is_caller_cancellation, run_tool, start_tool
from toolwire.execution.settings import PipelineSettings, ToolLookup
from toolwire.execution.validate import validate_args
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tools import Tool

__all__ = ["Pipeline", "as_call"]

logger = logging.getLogger("toolwire.execution")

Answer: TypeAlias = Callable[[Batch, ToolCall], Awaitable[CallOutcome]]
"""How the pipeline answers one call: `_answer`, or a tracer's wrapper around it."""


def as_call(raw: Any, index: int) -> ToolCall:
    """Accept a `ToolCall` or a mapping with ``id``/``name``/``args``; never raises."""
    if type(raw) is ToolCall:
        return raw
    if isinstance(raw, Mapping):
        args = raw.get("args", raw.get("arguments", "{}"))
        if not isinstance(args, str | Mapping):
            args = "" if args is None else repr(args)
        return ToolCall(
            id=str(raw.get("id", f"call_{index}")), name=str(raw.get("name", "")), args=args
        )
    if isinstance(raw, ToolCall):
        return raw
    return ToolCall(id=f"call_{index}", name=f"<{type(raw).__name__}>", args="{}")


class _Progress:
    """What the outcome reports besides the result: the arguments reached, a cache hit, the
    untrusted tool whose result taints the session (`toolwire.execution.flow`)."""

    __slots__ = ("args", "cached", "untrusted")

    def __init__(self) -> None:
        self.args: Mapping[str, Any] | None = None
        self.cached = False
        self.untrusted: Tool | None = None


class Pipeline:
    """Runs batches of calls for one registry.

    Args:
        settings: The registry's frozen settings.
        lookup: Finds a registered tool by name.
    """

    __slots__ = ("_answer", "_last_ctx", "_last_seam_reset", "_lookup", "settings")

    def __init__(self, settings: PipelineSettings, lookup: ToolLookup) -> None:
        self.settings = settings
        self._lookup = lookup
        self._last_ctx: ToolContext | None = None  # a caller usually passes the same (frozen)
        self._last_seam_reset: dict[str, None] | None = None  # context batch after batch
        tracer = settings.tracer  # chosen once: no tracer costs no check per call
        self._answer: Answer = _answer if tracer is None else tracer.trace_calls(_answer)

    async def run_batch(
        self,
        calls: Sequence[ToolCall | Mapping[str, Any]],
        ctx: ToolContext,
        admission: Admission,
        turn_attachments: Sequence[Attachment] | None = None,
    ) -> list[CallOutcome]:
        """One outcome per call, in input order; never raises for what a call does."""
        if len(calls) == 1:  # the common case, without the list machinery
            only = calls[0]
            call = only if type(only) is ToolCall else as_call(only, 0)
            batch = self._batch(ctx, admission, turn_attachments, ctx.result_budget_chars)
            current = CURRENT_BATCH.set(batch) if TRACKING.on else None
            try:
                return [await self._answer(batch, call)]
            finally:
                if current is not None:
                    CURRENT_BATCH.reset(current)
                batch.close()
        normalised = [as_call(raw, i) for i, raw in enumerate(calls)]
        if not normalised:
            return []
        per_call = split_budget(ctx.result_budget_chars, len(normalised))
        batch = self._batch(ctx, admission, turn_attachments, per_call)
        current = CURRENT_BATCH.set(batch) if TRACKING.on else None
        try:
            outcomes: list[CallOutcome | None] = [None] * len(normalised)
            for segment in _segments(batch, normalised):
                if len(segment) == 1:
                    index, call = segment[0]
                    outcomes[index] = await self._answer(batch, call)
                else:
                    await _run_concurrently(batch, segment, outcomes, self._answer)
            return [outcome for outcome in outcomes if outcome is not None]
        finally:
            if current is not None:
                CURRENT_BATCH.reset(current)
            batch.close()

    def _batch(
        self,
        ctx: ToolContext,
        admission: Admission,
        turn_attachments: Sequence[Attachment] | None,
        per_call_budget: int,
    ) -> Batch:
        if ctx is not self._last_ctx:  # the seam check, remembered for the last context
            self._last_seam_reset = seam_reset(ctx)
            self._last_ctx = ctx
        return Batch(
            self.settings,
            self._lookup,
            ctx,
            admission,
            tuple(turn_attachments) if turn_attachments else (),
            per_call_budget,
            self._last_seam_reset,
        )


def _segments(batch: Batch, calls: list[ToolCall]) -> list[list[tuple[int, ToolCall]]]:
    """Split the batch at sequential tools: each such call forms a segment of its own."""
    segments: list[list[tuple[int, ToolCall]]] = [[]]
    for index, call in enumerate(calls):
        entry = batch.lookup(call.name) if type(call.name) is str else None
        if entry is not None and entry.tool.sequential:
            segments.append([(index, call)])
            segments.append([])
        else:
            segments[-1].append((index, call))
    return [segment for segment in segments if segment]


async def _run_concurrently(
    batch: Batch,
    segment: list[tuple[int, ToolCall]],
    outcomes: list[CallOutcome | None],
    answer: Answer,
) -> None:
    """Run a segment's calls at once. Each call answers for itself and never raises, so on
    asyncio a plain ``gather`` is as structured as a task group (an outer cancellation cancels
    every child) at a fraction of the cost per task; other backends use an anyio task group."""
    if asyncio._get_running_loop() is not None:  # on asyncio (trio runs no asyncio loop)
        results = await asyncio.gather(*(answer(batch, call) for _, call in segment))
        for (index, _), outcome in zip(segment, results, strict=True):
            outcomes[index] = outcome
        return

    async def answer_into(index: int, call: ToolCall) -> None:
        outcomes[index] = await answer(batch, call)

    async with anyio.create_task_group() as group:
        for index, call in segment:
            group.start_soon(answer_into, index, call)


async def _answer(batch: Batch, call: ToolCall) -> CallOutcome:
    """Run one call through the stages and wrap its result; never raises but for the caller's
    own cancellation."""
    started = time.perf_counter()
    progress = _Progress()
    try:
        if batch.limiter is None:
            result = await _stages(batch, call, progress)
        else:
            async with batch.limiter:
                result = await _stages(batch, call, progress)
        if progress.untrusted is not None and (
            isinstance(result, Ok) or result.code is ErrorCode.EXECUTION_FAILED
        ):  # the session has read untrusted text (an error's text too): later sinks ask
            await record_untrusted(batch.settings, batch.ctx, progress.untrusted)
    except BaseException as exc:  # a bug in a stage, or a hook's sys.exit(), still answers
        if is_caller_cancellation(exc) or is_closing(exc):
            raise
        logger.exception("toolwire pipeline failed on %s", call.name)
        result = Err(
            f"internal error while running {call.name}: {exception_message(exc)}",
            ErrorCode.EXECUTION_FAILED,
            cause=type(exc).__name__,
        )
    duration_ms = (time.perf_counter() - started) * 1000.0
    return make_outcome(call.id, call.name, result, duration_ms, progress.cached, progress.args)


async def _stages(batch: Batch, call: ToolCall, progress: _Progress) -> ToolResult:
    """admit → validate → before-hooks → dry-run → cache → budget → resolve → run → finish."""
    settings = batch.settings
    entry = admit(batch.lookup, batch.admission, settings.backends is not None, call)
    if isinstance(entry, Err):
        return entry
    tool = entry.tool
    args = validate_args(tool, call.args)
    if isinstance(args, Err):
        return args
    progress.args = args
    ctx = batch.ctx
    hooks = settings.hooks
    if hooks.has_before:
        replaced = await run_before_hooks(hooks, tool, call.id, args, ctx)
        if isinstance(replaced, Err):
            if replaced.code is ErrorCode.INPUT_INVALID:
                progress.args = None
            return replaced
        progress.args = args = replaced
    if ctx.dry_run:
        return dry_run_result(tool.name, args, settings.dry_run_redactor)
    progress.untrusted = tool if tool.output_is_untrusted else None  # `_answer` records it
    spent: Err | SpentApproval | None = None  # given back if a later stage refuses the call
    if tool.sink:  # the flow rule, then `requires_approval`: one check for other tools
        spent = await _sink_approval(batch, tool, call.id, args)
    elif tool.requires_approval and needs_approval(tool, args, ctx):
        spent = await _approval(batch, tool, args)
    if isinstance(spent, Err):
        return spent
    budget = call_budget(batch.per_call_budget, tool.max_result_chars)
    cache_key = None
    if tool.cache is not None:
        cache_key, hit = look_up(settings.result_cache, tool, ctx, args)
        if hit is not None:
            progress.cached = True
            hit_ctx = ctx.derive(result_budget_chars=budget, tool_call_id=call.id)
            return await finish(
                settings, Finishing(tool, call.id, args, hit_ctx, budget, 0.0, None, True), hit
            )
    q = settings.quotas  # quotas, tasks, the effect journal (`dispatch`): a few checks otherwise
    controlled = tool.long_running or tool.side_effects or ctx.hand_off_s is not None
    if controlled or spent is not None or (q is not None and q.covering(tool)):
        return await dispatch(batch, entry, call.id, args, budget, cache_key, spent)
    if not (hooks.has_observers or hooks.has_after):  # nobody to tell: the short way
        direct = entry.direct
        own: ToolContext | None = None
        if direct is not None and not entry.declares_capabilities and batch.seam_reset is None:
            # the function never sees a context: the call's own is made below only if needed
            attempt = start_tool(batch, tool, args, ctx, direct)
        else:
            resolved = call_context(batch, entry, call.id, budget)
            if isinstance(resolved, Err):
                return resolved
            own = resolved
            attempt = start_tool(batch, tool, args, own, direct)
        result = attempt[0] if isinstance(attempt, tuple) else (await attempt)[0]
        ended = _short_finish(batch, tool, call.id, args, own, budget, cache_key, result)
        return ended if isinstance(ended, Ok | Err) else await ended
    return await _observed(batch, entry, call.id, args, budget, cache_key)


async def _observed(
    batch: Batch,
    entry: RegisteredTool,
    call_id: str,
    args: dict[str, Any],
    budget: int,
    cache_key: tuple[str, str, str] | None,
) -> ToolResult:
    """Run and finish a call that observers or after-hooks are told about (timed)."""
    call_ctx = call_context(batch, entry, call_id, budget)
    if isinstance(call_ctx, Err):
        return call_ctx
    tool = entry.tool
    started = time.perf_counter()
    result = await run_tool(batch, tool, args, call_ctx)
    duration_ms = (time.perf_counter() - started) * 1000.0
    finishing = Finishing(tool, call_id, args, call_ctx, budget, duration_ms, cache_key)
    return await finish(batch.settings, finishing, result)


def _short_finish(
    batch: Batch,
    tool: Tool,
    call_id: str,
    args: dict[str, Any],
    own: ToolContext | None,
    budget: int,
    cache_key: tuple[str, str, str] | None,
    result: ToolResult,
) -> ToolResult | Awaitable[ToolResult]:
    """The short way's end: the trimmed result, or what still needs awaiting (a handle for a
    trimmed value, reducers, the cache). ``own`` is the call's context, made here when the
    tool ran without one."""
    settings = batch.settings
    reducers = settings.reducers
    if cache_key is None and (reducers is None or reducers.get(tool.name) is None):
        if not (settings.result_handles and type(result) is Ok and len(result.value) > budget):
            return trim_result(result, budget)[0]  # nothing to reduce or store: trim only
        own = own or plain_call_context(batch.ctx, call_id, budget)
        return _keep_trimmed(settings, tool, own, result, budget)
    own = own or plain_call_context(batch.ctx, call_id, budget)
    return finish(settings, Finishing(tool, call_id, args, own, budget, 0.0, cache_key), result)


async def _sink_approval(
    batch: Batch, tool: Tool, call_id: str, args: Mapping[str, Any]
) -> Err | SpentApproval | None:
    """A sink's approval stage: the flow rule (`toolwire.execution.flow`), then the tool's
    own ``requires_approval``; an approval the flow rule took stands for both."""
    tokens = batch.admission.approvals
    flowed = await sink_rule(batch.settings, tool, call_id, args, batch.ctx, tokens)
    if flowed is None and tool.requires_approval and needs_approval(tool, args, batch.ctx):
        return await _approval(batch, tool, args)
    return flowed


async def _approval(batch: Batch, tool: Tool, args: Mapping[str, Any]) -> Err | SpentApproval:
    """The approval stage (`toolwire.execution.approvals`) for a tool that may need one."""
    settings = batch.settings
    factory = settings.backends.kv_store_factory if settings.backends is not None else None
    approvals = batch.admission.approvals
    return await take_approval(settings.approvals, factory, tool, args, batch.ctx, approvals)


async def _keep_trimmed(
    settings: PipelineSettings, tool: Tool, ctx: ToolContext, result: Ok, budget: int
) -> ToolResult:
    """The trim, keeping an over-budget value behind a handle (`toolwire.execution.handles`)."""
    assert settings.result_handles is not None
    factory = settings.backends.kv_store_factory if settings.backends is not None else None
    return await keep_trimmed(settings.result_handles, factory, tool, ctx, result, budget)
