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
import inspect
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ProgressEvent, ToolContext
from toolwire.errors import AbortedError
from toolwire.execution.budget import call_budget, split_budget, trim_result
from toolwire.execution.dry_run import dry_run_result
from toolwire.execution.gates import FilterOptions, RegisteredTool, check_call
from toolwire.hooks import AfterCall, BeforeCall, ToolEvent
from toolwire.reducers.registry import ReducerContext, safe_reduce
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.schema import ArgsInvalid
from toolwire.seams import Attachment

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["run_batch"]

logger = logging.getLogger("toolwire.execution")


class _Batch:
    """The state one `execute_parallel` call shares across its calls."""

    __slots__ = (
        "allowed",
        "attachments",
        "ctx",
        "filters",
        "limiter",
        "per_call_budget",
        "registry",
        "running",
        "unsubscribe",
    )

    def __init__(
        self,
        registry: ToolRegistry,
        ctx: ToolContext,
        allowed: frozenset[str] | None,
        filters: FilterOptions | None,
        attachments: tuple[Attachment, ...],
        per_call_budget: int,
        limiter: anyio.CapacityLimiter | None,
    ) -> None:
        self.registry = registry
        self.ctx = ctx
        self.allowed = allowed
        self.filters = filters
        self.attachments = attachments
        self.per_call_budget = per_call_budget
        self.limiter = limiter
        self.running: set[anyio.CancelScope] = set()
        self.unsubscribe: Callable[[], None] | None = None

    def track(self, scope: anyio.CancelScope) -> None:
        """Cancel ``scope`` when the abort signal fires (subscribing on first use)."""
        self.running.add(scope)
        if self.unsubscribe is None:
            self.unsubscribe = self.ctx.abort_signal.subscribe(self._cancel_all)

    def _cancel_all(self) -> None:
        for scope in tuple(self.running):
            scope.cancel()

    def close(self) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
            self.unsubscribe = None


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


def _exception_message(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


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
    batch = _Batch(
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
    batch: _Batch, segment: list[tuple[int, ToolCall]], outcomes: list[CallOutcome | None]
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
    batch: _Batch, call: ToolCall, outcomes: list[CallOutcome | None], index: int
) -> None:
    outcomes[index] = await _run_one(batch, call)


async def _run_one(batch: _Batch, call: ToolCall) -> CallOutcome:
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
        if _belongs_to_caller(exc):
            raise
        logger.exception("toolwire pipeline failed on %s", call.name)
        result = Err(
            f"internal error while running {call.name}: {_exception_message(exc)}",
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


def _gate(batch: _Batch, call: ToolCall) -> RegisteredTool | Err:
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
    batch: _Batch, call: ToolCall
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

    call_ctx = await _call_context(batch, tool.name, tool.capabilities, call.id, budget)
    if isinstance(call_ctx, Err):
        return call_ctx, False, args

    started = time.perf_counter()
    if hooks.has_observers:
        await hooks.emit(
            ToolEvent(
                name="tool:pre", tool_name=tool.name, tool_call_id=call.id, data={"input": args}
            )
        )
    result, failure = await _execute(batch, tool, args, call_ctx)
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


_SEAMS = (
    "kv_store",
    "secrets_resolver",
    "scoped_fetch",
    "scoped_fs",
    "scoped_process",
    "attachments",
)
"""The capability seams of a `ToolContext`; a tool sees only those it declared."""


async def _call_context(
    batch: _Batch, tool_name: str, capabilities: Any, call_id: str, budget: int
) -> ToolContext | Err:
    """The context this call's tool sees: its budget, its id, progress wiring, its seams."""
    ctx = batch.ctx
    registry = batch.registry
    changes: dict[str, Any] = {"result_budget_chars": budget, "tool_call_id": call_id}
    if registry.hooks.has_observers:
        changes["emit"] = _progress_emitter(registry, ctx.emit, call_id)
    if capabilities.is_empty and any(getattr(ctx, seam) is not None for seam in _SEAMS):
        changes.update(dict.fromkeys(_SEAMS))  # no declaration, no seams: not even the caller's
    call_ctx = ctx.derive(**changes)
    if capabilities.is_empty or registry.backends is None:
        return call_ctx
    from toolwire.backends.resolver import CapabilityScope, resolve_capabilities

    try:
        resolved = resolve_capabilities(
            tool_name,
            capabilities,
            CapabilityScope.from_context(ctx, batch.attachments),
            registry.backends,
        )
        return resolved.apply(call_ctx)
    except Exception as exc:  # a failing resolver denies
        return Err(
            f"Tool {tool_name}: its capabilities could not be resolved ({_exception_message(exc)})",
            ErrorCode.NOT_AVAILABLE,
            reason="capability_resolution_failed",
        )


def _progress_emitter(
    registry: ToolRegistry, inner: Callable[[ProgressEvent], None], call_id: str
) -> Callable[[ProgressEvent], None]:
    def emit(event: ProgressEvent) -> None:
        try:
            inner(event)
        except Exception:
            logger.exception("toolwire: the context's emit failed")
        registry.hooks.emit_progress_nowait(event, call_id)

    return emit


def _belongs_to_caller(exc: BaseException) -> bool:
    """A real cancellation, Ctrl-C or generator exit: re-raised, never turned into a result."""
    if isinstance(exc, KeyboardInterrupt | GeneratorExit):
        return True
    return isinstance(exc, anyio.get_cancelled_exc_class()) and _cancel_requested()


def _cancel_requested() -> bool:
    """Whether the running task is really being cancelled.

    A tool that awaits an inner task it cancelled itself raises ``CancelledError`` although
    nobody cancelled the call; on asyncio that shows as a task with no pending cancel request,
    and it is the tool's failure, not the caller's cancellation. Elsewhere, assume it is real.
    """
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not on asyncio
        return True
    return task is None or task.cancelling() > 0


def _scope(timeout: float | None) -> anyio.CancelScope:
    if timeout is None:
        return anyio.CancelScope()
    return anyio.CancelScope(deadline=anyio.current_time() + timeout)


async def _execute(
    batch: _Batch, tool: Any, args: dict[str, Any], ctx: ToolContext
) -> tuple[ToolResult, str | None]:
    """Run the tool under its timeout and the abort signal; returns (result, failure text).

    The whole coroutine runs inside the scope. Running its first step outside (to skip the scope
    for tools that never suspend) breaks every tool that enters a cancel scope or task group of
    its own before its first ``await`` (``anyio.fail_after``, ``create_task_group``, httpx):
    anyio then sees scopes exited out of order and raises out of the batch.
    """
    signal = ctx.abort_signal
    if signal.aborted:
        message = f"aborted: {signal.reason}"
        return Err(message, ErrorCode.EXECUTION_FAILED, cause="aborted"), message
    timeout = tool.timeout_s if tool.timeout_s is not None else batch.registry.default_timeout_s
    result: Any = None
    scope: anyio.CancelScope | None = None
    try:
        pending = tool.execute(args, ctx)
        if inspect.isawaitable(pending):
            scope = _scope(timeout)
            batch.track(scope)
            with scope:
                result = await pending
        else:
            result = pending
    except AbortedError as exc:
        message = f"aborted: {exc.reason}"
        return Err(message, ErrorCode.EXECUTION_FAILED, cause="aborted"), message
    except BaseException as exc:  # sys.exit() or any BaseException of a tool must not end the host
        if _belongs_to_caller(exc):
            raise
        message = _exception_message(exc)
        return Err(message, ErrorCode.EXECUTION_FAILED, cause=type(exc).__name__), message
    finally:
        if scope is not None:
            batch.running.discard(scope)
    if scope is not None and scope.cancelled_caught:
        if signal.aborted:
            message = f"aborted: {signal.reason}"
            return Err(message, ErrorCode.EXECUTION_FAILED, cause="aborted"), message
        message = f"Tool {tool.name} timed out after {timeout:g} s"
        return Err(message, ErrorCode.EXECUTION_FAILED, cause="timeout"), message
    if not isinstance(result, Ok | Err):
        message = f"Tool {tool.name} returned {type(result).__name__}, not a ToolResult"
        return Err(message, ErrorCode.EXECUTION_FAILED, cause="bad_result"), message
    return result, None
