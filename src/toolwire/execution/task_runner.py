"""`TaskRunner`: the pipeline's side of tasks; a call past its hand-off time goes on in the
background.

`TaskRunner.hand_off` runs the rest of a call in a background task (on asyncio or trio); when
it ends within the hand-off time its result answers as usual, otherwise a ``working`` record is
written and the caller gets the pending result. While it runs, the process polls the record
for a cancellation another process asked for and refreshes the heartbeat; its end is recorded.
`toolwire.execution.tasks.Tasks` adds the caller's side (get, wait, cancel, list).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeAlias

import anyio

from toolwire.capabilities.seams import AtomicKeyValueStore, KeyValueStore
from toolwire.context import AbortSignal
from toolwire.errors import ConfigurationError
from toolwire.execution.task_records import (
    TASKS_SCOPE,
    TASKS_TOOL,
    TaskInfo,
    new_task,
    to_record,
    update_record,
    with_end,
)
from toolwire.results import Err, ErrorCode, Ok, ToolResult

__all__ = ["CANCELLED", "DEFAULT_HAND_OFF_S", "RunningTask", "StoreFactory", "TaskRunner", "Work"]

logger = logging.getLogger("toolwire.execution.tasks")

DEFAULT_HAND_OFF_S = 5.0
"""How long a ``long_running`` tool's call is waited for before it becomes a task."""

StoreFactory: TypeAlias = Callable[[str, str], KeyValueStore]
"""A registry's ``kv_store_factory``: a store for (tool name, scope)."""
Work: TypeAlias = Callable[[AbortSignal], Awaitable[ToolResult]]
"""The rest of a call, run with the abort signal it should follow."""

CANCELLED = "cancelled by registry.tasks.cancel"
"""The abort reason of a task `toolwire.execution.tasks.Tasks.cancel` stopped."""


class RunningTask:
    """A task of this process, while it runs (and for a moment after)."""

    __slots__ = ("done", "info", "registered", "result", "signal")

    def __init__(self, info: TaskInfo, signal: AbortSignal) -> None:
        self.info = info
        self.signal = signal
        self.result: ToolResult | None = None
        self.done = anyio.Event()
        self.registered = anyio.Event()  # its "working" record is written


class TaskRunner:
    """Runs handed-off calls and records them (the base of `toolwire.execution.tasks.Tasks`,
    whose docstring describes the arguments)."""

    def __init__(
        self,
        store: KeyValueStore | None = None,
        *,
        hand_off_s: float = DEFAULT_HAND_OFF_S,
        ttl_s: float = 24 * 3600.0,
        poll_s: float = 0.5,
    ) -> None:
        if store is not None and not isinstance(store, AtomicKeyValueStore):
            raise ConfigurationError(
                "Tasks(store=...) needs a store with compare_and_set (every built-in "
                "key-value store has one: backend.scoped(name, scope))"
            )
        for name, value in (("hand_off_s", hand_off_s), ("ttl_s", ttl_s), ("poll_s", poll_s)):
            if not 0 <= value < math.inf or (name != "hand_off_s" and value == 0):
                raise ConfigurationError(f"Tasks({name}={value!r}) must be positive seconds")
        self.hand_off_s = hand_off_s
        self.ttl_s = ttl_s
        self.poll_s = poll_s
        self._store: AtomicKeyValueStore | None = store
        self._factory: StoreFactory | None = None
        self._running: dict[str, RunningTask] = {}
        self._handles: set[asyncio.Task[None]] = set()

    def bind(self, factory: StoreFactory | None) -> None:
        """Use ``factory`` (the registry's ``kv_store_factory``) when no store was given."""
        self._factory = factory

    @property
    def store(self) -> AtomicKeyValueStore:
        """Where the records live (made on first use)."""
        store = self._store
        if store is None:
            made = self._factory(TASKS_TOOL, TASKS_SCOPE) if self._factory else None
            if isinstance(made, AtomicKeyValueStore):
                store = made
            else:
                from toolwire.stores._memory import MemoryKeyValueBackend

                private = MemoryKeyValueBackend().scoped(TASKS_TOOL, TASKS_SCOPE)
                assert isinstance(private, AtomicKeyValueStore)
                store = private
            self._store = store
        return store

    @property
    def running(self) -> list[str]:
        """The ids of the tasks this process runs right now."""
        return [task_id for task_id, task in self._running.items() if not task.done.is_set()]

    async def hand_off(
        self,
        work: Work,
        hand_off_s: float,
        caller_signal: AbortSignal,
        *,
        tool_name: str,
        call_id: str,
        session_id: str,
    ) -> ToolResult:
        """Run ``work`` in the background; its result when it ends within ``hand_off_s``,
        else the pending result of the task it became."""
        info = new_task(tool_name, call_id, session_id, self.ttl_s)
        running = RunningTask(info, AbortSignal())
        self._running[info.task_id] = running
        unsubscribe = caller_signal.subscribe(
            lambda: running.signal.abort(caller_signal.reason or "")
        )
        try:
            self._spawn(self._drive, running, work)
            with anyio.move_on_after(hand_off_s):
                await running.done.wait()
        except BaseException:  # the caller was cancelled before the hand-off: so is the call
            running.signal.abort("the caller was cancelled")
            running.registered.set()
            raise
        finally:
            unsubscribe()
        if running.done.is_set():  # ended in time: no task
            running.registered.set()
            self._running.pop(info.task_id, None)
            assert running.result is not None
            return running.result
        try:
            await self.store.set(info.task_id, json.dumps(to_record(info, None)), self.ttl_s)
        finally:
            running.registered.set()
        self._spawn(self._watch, running)
        return Ok(
            f"{tool_name} is still running: it was handed off as task {info.task_id}. Its "
            "result will be kept; ask for it later instead of calling the tool again.",
            structured={"task": {"id": info.task_id, "status": "working", "tool": tool_name}},
        )

    def _spawn(self, fn: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        if asyncio._get_running_loop() is not None:
            handle: asyncio.Task[None] = asyncio.get_running_loop().create_task(fn(*args))
            self._handles.add(handle)
            handle.add_done_callback(self._handles.discard)
            return
        import trio  # anyio's other backend; imported only there

        trio.lowlevel.spawn_system_task(fn, *args, context=contextvars.copy_context())

    async def _drive(self, running: RunningTask, work: Work) -> None:
        """Run the call to its end; once handed off, record the end in the store. Never
        raises (a background task has nobody to raise to)."""
        try:
            running.result = await work(running.signal)
        except BaseException as exc:  # a bug, or the loop shutting down
            if not isinstance(exc, anyio.get_cancelled_exc_class()):
                logger.exception("toolwire task %s failed", running.info.task_id)
            running.result = Err(
                f"task {running.info.task_id} ended abnormally ({type(exc).__name__})",
                ErrorCode.EXECUTION_FAILED,
                cause=type(exc).__name__,
            )
        finally:
            running.done.set()
            with anyio.CancelScope(shield=True):
                await self._record_end(running)

    async def _record_end(self, running: RunningTask) -> None:
        await running.registered.wait()
        info = running.info
        try:
            if info.task_id in self._running:  # handed off: keep the end in the store
                finished = with_end(info, running.result, cancelled=running.signal.aborted)
                running.info = finished
                await self.store.set(
                    info.task_id, json.dumps(to_record(finished, finished.result)), self.ttl_s
                )
        except Exception:
            logger.exception("toolwire could not record the end of task %s", info.task_id)
        finally:
            self._running.pop(info.task_id, None)

    async def _watch(self, running: RunningTask) -> None:
        """While the task runs: look for a cancellation asked by another process, refresh the
        heartbeat."""
        while not running.done.is_set():
            with anyio.move_on_after(self.poll_s):
                await running.done.wait()
            if running.done.is_set():
                return
            try:
                record = await update_record(
                    self.store, running.info.task_id, lambda r: r.update(beat=time.time())
                )
            except Exception:
                logger.exception("toolwire could not refresh task %s", running.info.task_id)
                continue
            if record is not None and record.get("cancel"):
                running.signal.abort(CANCELLED)
