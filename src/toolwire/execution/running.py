"""Running one tool: inside its cancel scope, under its timeout and the abort signal."""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import Coroutine, Generator
from types import CoroutineType
from typing import Any

import anyio

from toolwire.context import ToolContext
from toolwire.errors import AbortedError
from toolwire.execution.batch import Batch, exception_message
from toolwire.results import Err, ErrorCode, Ok, ToolResult

__all__ = ["belongs_to_caller", "run_tool"]


def belongs_to_caller(exc: BaseException) -> bool:
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


class _Resume:
    """Awaits the rest of a coroutine whose first step already ran (inside the same scope).

    Values and exceptions pass straight through, so the event loop and the cancel scope around
    this await see exactly what they would have seen awaiting the coroutine itself.
    """

    __slots__ = ("_coro", "_first")

    def __init__(self, coro: Coroutine[Any, Any, Any], first: Any) -> None:
        self._coro = coro
        self._first = first

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, value = self._coro, self._first
        while True:
            try:
                sent = yield value
            except BaseException as exc:  # cancellation and everything else go to the coroutine
                try:
                    value = coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    value = coro.send(sent)
                except StopIteration as done:
                    return done.value


async def _run_in_scope(
    pending: Coroutine[Any, Any, Any], scope: anyio.CancelScope, timeout: float | None, batch: Batch
) -> Any:
    """Run ``pending`` inside ``scope`` (already entered), arming the deadline and the abort
    subscription only when the coroutine suspends: a tool that finishes in its first step cannot
    be interrupted anyway (cancellation lands at an ``await``), so it pays for neither."""
    try:
        first = pending.send(None)
    except StopIteration as done:
        return done.value
    if timeout is not None:
        scope.deadline = anyio.current_time() + timeout
    batch.track(scope)  # an abort that already fired cancels the scope right here
    return await _Resume(pending, first)


async def run_tool(
    batch: Batch, tool: Any, args: dict[str, Any], ctx: ToolContext
) -> tuple[ToolResult, str | None]:
    """Run the tool under its timeout and the abort signal; returns (result, failure text).

    The whole coroutine runs inside the scope, first step included: running it outside (to skip
    the scope for tools that never suspend) breaks every tool that enters a cancel scope or task
    group of its own before its first ``await`` (``anyio.fail_after``, ``create_task_group``,
    httpx), since anyio then sees scopes exited out of order. The deadline timer, though, is
    armed only once the tool suspends.
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
        if type(pending) is CoroutineType:
            scope = anyio.CancelScope()
            with scope:
                result = await _run_in_scope(pending, scope, timeout, batch)
        elif inspect.isawaitable(pending):
            scope = anyio.CancelScope(
                deadline=math.inf if timeout is None else anyio.current_time() + timeout
            )
            batch.track(scope)
            with scope:
                result = await pending
        else:
            result = pending
    except AbortedError as exc:
        message = f"aborted: {exc.reason}"
        return Err(message, ErrorCode.EXECUTION_FAILED, cause="aborted"), message
    except BaseException as exc:  # sys.exit() or any BaseException of a tool must not end the host
        if belongs_to_caller(exc):
            raise
        message = exception_message(exc)
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
