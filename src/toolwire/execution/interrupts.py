"""Interrupting a running tool: its deadline and the abort signal, on either anyio backend.

A tool that finishes in its first step (most tools that never wait) cannot be interrupted at
all — cancellation lands at an ``await`` — so neither driver arms anything until the tool
first suspends:

- **asyncio** (`NativeGuard`): the first step runs with no cancel scope around it, and
  only when the coroutine suspends is a deadline timer armed and the call registered with the
  batch's abort signal. Interrupting it is a native ``Task.cancel()`` that the driver takes
  back with ``Task.uncancel()``, exactly as ``asyncio.timeout`` does, so anyio scopes and task
  groups the tool opened (even in its first step) keep working and a cancellation the caller
  requested is never mistaken for ours. One difference from an anyio scope: a native
  cancellation also reaches a tool suspended inside a shielded scope of its own.
- **other backends** (trio): the whole coroutine runs inside an anyio `CancelScope` whose
  deadline and abort subscription are set once the tool suspends.

Both raise `Interrupted` when our interruption ended the call, and let every other exception,
the caller's own cancellation included, through unchanged.
"""

from __future__ import annotations

import asyncio
import math
import sys
import types
from collections.abc import Coroutine, Generator
from typing import Any

import anyio

from toolwire.execution.batch import Batch

if sys.version_info < (3, 12):
    # asyncio's own table of the task running on each loop: a dict lookup, where
    # ``asyncio.current_task()`` is a Python-level function before 3.12 (C from 3.12 on)
    _current_tasks: dict[asyncio.AbstractEventLoop, asyncio.Task[Any]] = (
        asyncio.tasks._current_tasks  # type: ignore[attr-defined]
    )

__all__ = [
    "Interrupted",
    "NativeGuard",
    "Resume",
    "current_asyncio_task",
    "drive_in_scope",
    "is_closing",
]

_CLOSING = "_toolwire_closing"
_REDELIVER_S = 0.05
"""How often an interruption is delivered again to a tool that swallowed it."""


class Interrupted(Exception):
    """The call's deadline passed or the abort signal fired while it ran."""


class Resume:
    """The rest of a coroutine whose first step already ran: ``await resume.run()``.

    Values and exceptions pass straight through, so the event loop and any cancel scope around
    this await see exactly what they would have seen awaiting the coroutine itself.
    ``closing`` records that the coroutine is being closed from outside — a ``GeneratorExit``
    thrown in while its own task is not the one running (a ``GeneratorExit`` the tool raised in
    a worker thread is thrown in by its own task) — which is the caller's business, not a
    failure of the tool.
    """

    __slots__ = ("_coro", "_first", "_task", "closing")

    def __init__(self, coro: Coroutine[Any, Any, Any], first: Any, task: object = None) -> None:
        self._coro = coro
        self._first = first
        self._task = task if task is not None else _running_task()
        self.closing = False

    @types.coroutine  # awaitable itself, and free to ``yield from`` the tool's coroutine
    def run(self) -> Generator[Any, Any, Any]:
        """Await this for the rest of the coroutine (see `returned` and `raised`).

        The first value goes to the awaiting task by hand; once the task answers it the way
        asyncio does (``send(None)``), the rest is delegated with ``yield from``: resumed in C,
        and ending without a ``StopIteration`` of ours.
        """
        coro, value = self._coro, self._first
        try:
            while True:
                try:
                    sent = yield value
                except BaseException as exc:  # cancellation and everything else go to the coroutine
                    self._note_closing(exc)
                    value = coro.throw(exc)
                    continue
                if sent is None:  # what a task sends: hand the coroutine over, as ``await`` does
                    return self.returned((yield from coro))
                value = coro.send(sent)
        except StopIteration as done:  # the coroutine's own end, after a throw or a send
            return self.returned(done.value)
        except BaseException as exc:
            self._note_closing(exc)
            return self.raised(exc)

    def _note_closing(self, exc: BaseException) -> None:
        """Mark a ``GeneratorExit`` thrown in while another task runs: the caller closing the
        coroutine, not the tool failing."""
        # ``!=``, not ``is not``: anyio's task ids (trio) are ints, equal but not the same object
        if isinstance(exc, GeneratorExit) and _running_task() != self._task:
            self.closing = True
            setattr(exc, _CLOSING, True)

    def returned(self, value: Any) -> Any:
        """What awaiting gives when the coroutine returned ``value`` (``value`` itself here)."""
        return value

    def raised(self, exc: BaseException) -> Any:
        """What awaiting gives when the coroutine raised ``exc`` (raises it again here)."""
        raise exc


class NativeGuard(Resume):
    """The rest of one call on asyncio (``await guard.run()``), interrupted natively; it knows which
    cancellations were its own.

    Made once the tool's first step has suspended, in the task running the call: it puts the
    call's deadline in the batch's `DeadlineQueue` and registers the call with the batch's
    abort signal. Interrupting is ``Task.cancel()``, repeated every 50 ms while the tool swallows
    it; when the coroutine ends, the guard takes the requests back with ``Task.uncancel()``
    (`settle`), leaves the batch (`release`), and awaiting it gives the coroutine's value or
    raises `Interrupted` for an interruption of its own (every other exception unchanged).
    Subclasses turn the end into something else by overriding `returned` and `raised`.
    """

    __slots__ = ("_base", "_batch", "_done", "_handles", "_native", "_requests")

    def __init__(
        self,
        task: asyncio.Task[Any],
        coro: Coroutine[Any, Any, Any],
        first: Any,
        timeout: float | None,
        batch: Batch,
    ) -> None:
        # Resume's fields set here rather than through super(): every waiting call makes one
        self._coro = coro
        self._first = first
        self._task = self._native = task
        self.closing = False
        self._batch = batch
        self._base = task.cancelling()
        self._requests = 0
        self._done = False
        self._handles: list[asyncio.Handle] | None = None
        if timeout is not None and timeout != math.inf:
            # the queue drops the deadline lazily once the call is over (``_fire`` checks)
            queue = batch.deadline_queue or batch.deadlines(task.get_loop())
            queue.add(timeout, self._fire)
        batch.track(self)  # an abort that already fired interrupts at the first await

    def returned(self, value: Any) -> Any:
        """The coroutine returned ``value``: release the call, and give ``value``."""
        self.release()
        return value

    def raised(self, exc: BaseException) -> Any:
        """The coroutine raised ``exc``: release the call and raise what it means (`settle`)."""
        meaning = self.settle(exc)
        self.release()
        raise meaning

    def cancel(self) -> None:
        """Interrupt the call (the abort path); deferred when called from the call itself."""
        if asyncio.current_task() is self._native:
            self._later(self._native.get_loop().call_soon(self._fire))
        else:
            self._fire()

    def _later(self, handle: asyncio.Handle) -> None:
        if self._handles is None:
            self._handles = []
        self._handles.append(handle)

    def _fire(self) -> None:
        if self._done:
            return
        self._requests += 1
        self._native.cancel("toolwire: the call was interrupted")
        # delivered again while the call runs, like an anyio scope, if the tool swallows it
        self._later(self._native.get_loop().call_later(_REDELIVER_S, self._fire))

    def settle(self, exc: BaseException) -> BaseException:
        """What the call's exception means: `Interrupted` when it is the `CancelledError` of our
        own interruption (taken back), else ``exc`` itself (the caller's cancellation too)."""
        if isinstance(exc, asyncio.CancelledError) and not self.closing:
            mine = self._requests
            self.release()
            if mine > 0 and self._native.cancelling() <= self._base:
                return Interrupted()
        return exc

    def release(self) -> None:
        """The call is over: disarm, leave the batch, and take back requests the tool
        swallowed. Idempotent."""
        if self._done:
            return
        self._done = True
        self._batch.untrack(self)
        if self._handles is not None:
            for handle in self._handles:
                handle.cancel()
            self._handles = None
        while self._requests:
            self._native.uncancel()
            self._requests -= 1


def current_asyncio_task() -> asyncio.Task[Any]:
    """The asyncio task running now; call it only from inside one (a suspended coroutine
    always is)."""
    if sys.version_info < (3, 12):
        task = _current_tasks.get(asyncio._get_running_loop())  # type: ignore[arg-type]
    else:
        task = asyncio.current_task()
    assert task is not None, "current_asyncio_task() called outside an asyncio task"
    return task


async def drive_in_scope(
    coro: Coroutine[Any, Any, Any], timeout: float | None, batch: Batch
) -> Any:
    """Run ``coro`` inside an anyio cancel scope armed when it first suspends (any backend).

    The whole coroutine runs inside the scope, first step included: entering a scope after a
    first step that opened scopes of its own would exit them out of order.
    """
    scope = anyio.CancelScope()
    try:
        with scope:
            try:
                first = coro.send(None)
            except StopIteration as done:
                return done.value
            if timeout is not None:
                scope.deadline = anyio.current_time() + timeout
            batch.track(scope)  # an abort that already fired cancels the scope right here
            value = await Resume(coro, first).run()
    finally:
        batch.untrack(scope)
    if scope.cancelled_caught:
        raise Interrupted
    return value


def _running_task() -> object:
    """The task running now (asyncio's, or anyio's id of it elsewhere); ``None`` outside one."""
    try:
        if asyncio._get_running_loop() is not None:
            return asyncio.current_task()
        return anyio.get_current_task().id
    except Exception:
        return None


def is_closing(exc: BaseException) -> bool:
    """Whether ``exc`` is the ``GeneratorExit`` of a caller closing the call's coroutine (as
    opposed to one the tool raised itself)."""
    return isinstance(exc, GeneratorExit) and getattr(exc, _CLOSING, False) is True
