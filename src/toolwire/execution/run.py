"""Stage 8, run: the tool itself, under its timeout and the abort signal.

Nothing a tool does escapes its own call. An exception — ``KeyboardInterrupt``, ``SystemExit``
and ``GeneratorExit`` included, on the event loop or in a worker thread — answers the call
``execution_failed`` with the exception's message; so does a timeout (``Tool <name> timed out
after N s``), an abort (``aborted: <reason>``) and a return value that is not a well-formed
`ToolResult`. Only a cancellation of the caller's own passes through.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from types import CoroutineType
from typing import Any, TypeAlias

import anyio

from toolwire.context import AbortSignal, ToolContext
from toolwire.errors import AbortedError, CapabilityError
from toolwire.execution.batch import Batch, exception_message
from toolwire.execution.hooks import ToolEvent
from toolwire.execution.interrupts import (
    Interrupted,
    NativeGuard,
    current_asyncio_task,
    drive_in_scope,
    is_closing,
)
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.threads import WorkerThreadExit
from toolwire.tools import DirectCall, Tool

__all__ = [
    "Attempt",
    "checked_result",
    "execute_tool",
    "is_caller_cancellation",
    "observed_attempt",
    "run_tool",
    "start_tool",
]


def is_caller_cancellation(exc: BaseException) -> bool:
    """A cancellation somebody really requested of the running task: re-raised, never a result.

    A tool that awaits an inner task it cancelled itself raises ``CancelledError`` although
    nobody cancelled the call; on asyncio that shows as a task with no pending cancel request,
    and it is the tool's failure. Elsewhere a cancellation is taken to be real.
    """
    if not isinstance(exc, anyio.get_cancelled_exc_class()):
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not on asyncio
        return True
    return task is None or task.cancelling() > 0


def checked_result(tool_name: str, value: Any) -> ToolResult:
    """``value`` when it is a well-formed `ToolResult`; else an ``execution_failed`` naming
    what was wrong with it."""
    if isinstance(value, Ok):
        if isinstance(value.value, str):
            return value
        problem = f"an Ok whose value is {type(value.value).__name__}, not str"
    elif isinstance(value, Err):
        if isinstance(value.error, str) and value.error.strip():
            return value
        problem = "an Err without a message"
    else:
        problem = f"{type(value).__name__}, not a ToolResult"
    return Err(
        f"Tool {tool_name} returned {problem}", ErrorCode.EXECUTION_FAILED, cause="bad_result"
    )


async def _awaiting(pending: Awaitable[Any]) -> Any:
    return await pending


async def run_tool(batch: Batch, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Run ``tool`` for one call, emitting ``tool:pre`` and, on failure, ``tool:error``."""
    return (await observed_attempt(batch, tool, args, ctx))[0]


async def observed_attempt(
    batch: Batch, tool: Tool, args: dict[str, Any], ctx: ToolContext
) -> Attempt:
    """The tool's `Attempt`, with ``tool:pre`` and, on failure, ``tool:error`` for the
    observers."""
    hooks = batch.settings.hooks
    call_id = ctx.tool_call_id or ""
    if hooks.has_observers:
        await hooks.emit(
            ToolEvent(
                name="tool:pre", tool_name=tool.name, tool_call_id=call_id, data={"input": args}
            )
        )
    result, failed = await execute_tool(batch, tool, args, ctx)
    if failed and hooks.has_observers:
        assert isinstance(result, Err)
        await hooks.emit(
            ToolEvent(
                name="tool:error",
                tool_name=tool.name,
                tool_call_id=call_id,
                data={"error": result.error},
            )
        )
    return result, failed


Convert: TypeAlias = Callable[[Any], ToolResult]
"""A `DirectCall`'s conversion of the function's value."""

Attempt: TypeAlias = tuple[ToolResult, bool]
"""A call's result, and whether it failed (an exception, a timeout, an abort, a malformed
result) rather than returned an error of its own."""


async def execute_tool(batch: Batch, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Attempt:
    """Run the tool without events, to its end (see `start_tool`)."""
    attempt = start_tool(batch, tool, args, ctx)
    return attempt if isinstance(attempt, tuple) else await attempt


def start_tool(
    batch: Batch,
    tool: Tool,
    args: dict[str, Any],
    ctx: ToolContext,
    direct: DirectCall | None = None,
) -> Attempt | Awaitable[Attempt]:
    """Start the tool: its `Attempt` when it finished in its first step (most tools that never
    wait), else an awaitable that runs the rest under the timeout and the abort signal.

    On asyncio the first step runs right here, outside any scope (it cannot be interrupted:
    cancellation lands at an ``await``), so a tool that never waits costs no coroutine of ours,
    and one that waits costs one guard object (`_RestOfCall`), which is also the awaitable.
    With ``direct`` (the tool's `DirectCall`) the function's own coroutine runs, not
    ``execute``'s wrapper around it.
    """
    signal = ctx.abort_signal
    if signal.aborted:
        return _aborted(signal.reason), True
    timeout = tool.timeout_s if tool.timeout_s is not None else batch.settings.default_timeout_s
    convert = None
    try:
        if direct is None:
            pending = tool.execute(args, ctx)
        else:
            convert = direct.convert
            pending = direct.function(**args)
        if type(pending) is not CoroutineType:
            if not inspect.isawaitable(pending):
                return _ended(tool, pending, convert, timeout, signal)
            pending = _awaiting(pending)
        if asyncio._get_running_loop() is None:  # cheap; trio runs no asyncio loop
            return _rest_in_scope(batch, tool, pending, convert, timeout, signal)
        try:
            first = pending.send(None)
        except StopIteration as done:
            return _ended(tool, done.value, convert, timeout, signal)
    except BaseException as exc:
        return _failure(exc, tool, timeout, signal)
    return _RestOfCall(pending, first, tool, convert, timeout, signal, batch).run()


class _RestOfCall(NativeGuard):
    """The rest of a call on asyncio whose first step suspended, under its deadline and the
    abort signal: awaiting it gives the call's `Attempt` (one frame, no coroutine of ours)."""

    __slots__ = ("_convert", "_signal", "_timeout", "_tool")

    def __init__(
        self,
        pending: Coroutine[Any, Any, Any],
        first: Any,
        tool: Tool,
        convert: Convert | None,
        timeout: float | None,
        signal: AbortSignal,
        batch: Batch,
    ) -> None:
        NativeGuard.__init__(self, current_asyncio_task(), pending, first, timeout, batch)
        self._tool = tool
        self._convert = convert
        self._timeout = timeout
        self._signal = signal

    def returned(self, value: Any) -> Attempt:
        self.release()
        if self._convert is None:
            return _checked(self._tool.name, value)
        return _ended(self._tool, value, self._convert, self._timeout, self._signal)

    def raised(self, exc: BaseException) -> Attempt:
        meaning = self.settle(exc)
        self.release()
        return _failure(meaning, self._tool, self._timeout, self._signal)


async def _rest_in_scope(
    batch: Batch,
    tool: Tool,
    pending: Coroutine[Any, Any, Any],
    convert: Convert | None,
    timeout: float | None,
    signal: AbortSignal,
) -> Attempt:
    try:
        value = await drive_in_scope(pending, timeout, batch)
    except BaseException as exc:
        return _failure(exc, tool, timeout, signal)
    return _ended(tool, value, convert, timeout, signal)


def _ended(
    tool: Tool, value: Any, convert: Convert | None, timeout: float | None, signal: AbortSignal
) -> Attempt:
    """The `Attempt` of a tool that returned ``value`` (through its `DirectCall`'s conversion
    when it ran directly: what fails there fails the call, as it would inside ``execute``)."""
    if convert is not None:
        try:
            value = convert(value)
        except BaseException as exc:
            return _failure(exc, tool, timeout, signal)
    return _checked(tool.name, value)


def _failure(exc: BaseException, tool: Tool, timeout: float | None, signal: AbortSignal) -> Attempt:
    """The `Attempt` an exception out of a tool answers; the caller's own cancellation (and a
    caller closing the coroutine) is raised again instead."""
    if isinstance(exc, Interrupted):
        if signal.aborted:
            return _aborted(signal.reason), True
        message = f"Tool {tool.name} timed out after {timeout:g} s"
        return Err(message, ErrorCode.EXECUTION_FAILED, cause="timeout"), True
    if isinstance(exc, AbortedError):
        return _aborted(exc.reason), True
    if is_caller_cancellation(exc) or is_closing(exc):
        raise exc
    if isinstance(exc, WorkerThreadExit):  # sys.exit(), Ctrl-C or any exception: its own call
        exc = exc.original
    if isinstance(exc, CapabilityError):  # a seam's refusal: what the built-in tools answer
        return Err(str(exc), ErrorCode.NOT_AVAILABLE, reason="capability_refused"), True
    message = exception_message(exc)
    return Err(message, ErrorCode.EXECUTION_FAILED, cause=type(exc).__name__), True


def _checked(tool_name: str, value: Any) -> Attempt:
    if type(value) is Ok and type(value.value) is str:  # the common case, checked at once
        return value, False
    result = checked_result(tool_name, value)
    return result, result is not value


def _aborted(reason: str | None) -> Err:
    return Err(f"aborted: {reason}", ErrorCode.EXECUTION_FAILED, cause="aborted")
