"""Tasks: a call still running at its hand-off time goes on in the background.

A tool declaring ``long_running=True`` is handed off after `Tasks.hand_off_s`; any call is
handed off after ``ctx.hand_off_s`` when the context sets it. A call that finished by then
answers as usual. One still running becomes a **task**: its outcome is an ``Ok`` saying it is
pending, whose ``structured["task"]`` holds the task id (`pending_task` reads it), and the call
goes on in the background, through the rest of the pipeline (reducer, trim, after-hooks);
its final result is kept in the store.

``registry.tasks`` (a `Tasks`) gets a task's state (`Tasks.get`), waits for its end
(`Tasks.wait`) and cancels it (`Tasks.cancel`); a task of another session is not found when
the caller names its session. Records live in the registry's key-value store (namespace
`TASKS_SCOPE`), or the one `Tasks.store` names, or else in this process only. Another process
on the same store sees the tasks, waits for them (polling every `Tasks.poll_s`) and cancels
them: the process running a task polls its record for that request, and refreshes a heartbeat
there, so a task whose process died is reported ``failed`` instead of ``working`` forever.

Before its hand-off a call follows the caller's abort signal; after it, only `Tasks.cancel`
(and the tool's own timeout) stops it. Closing the registry cancels the tasks it runs.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import anyio

from toolwire.calls import CallOutcome
from toolwire.context import AbortSignal
from toolwire.errors import ConfigurationError
from toolwire.results import Err, ErrorCode, Ok, ToolResult, result_from_dict, result_to_dict
from toolwire.seams import AtomicKeyValueStore, KeyValueStore

__all__ = [
    "DEFAULT_HAND_OFF_S",
    "TASKS_SCOPE",
    "TASKS_TOOL",
    "TaskInfo",
    "TaskStatus",
    "Tasks",
    "pending_task",
]

logger = logging.getLogger("toolwire.execution.tasks")

TASKS_TOOL = "toolwire-tasks"
"""The tool name the task store is asked for (``kv_store_factory(TASKS_TOOL, ...)``)."""
TASKS_SCOPE = f"tool:{TASKS_TOOL}"
"""Its scope: private to the tasks, shared by every process on the same store."""
DEFAULT_HAND_OFF_S = 5.0
"""How long a ``long_running`` tool's call is waited for before it becomes a task."""

TaskStatus: TypeAlias = Literal["working", "completed", "failed", "cancelled"]
"""A task's state, as MCP names them: an ``Ok`` completes it, an ``Err`` fails it."""
StoreFactory: TypeAlias = Callable[[str, str], KeyValueStore]
Work: TypeAlias = Callable[[AbortSignal], Awaitable[ToolResult]]
"""The rest of a call, run with the abort signal it should follow."""

_CANCELLED = "cancelled by registry.tasks.cancel"


@dataclass(frozen=True, kw_only=True, slots=True)
class TaskInfo:
    """A task's state.

    Attributes:
        task_id: Its id (``task-`` and 24 hex digits).
        tool_name: The tool it runs.
        call_id: The call it was handed off from.
        session_id: The session the call ran in.
        status: ``working``, ``completed``, ``failed`` or ``cancelled``.
        created_at: When it was handed off (Unix seconds).
        updated_at: When its status last changed.
        result: The call's final result, once it ended.
        ttl_s: How long the record is kept after its creation.
    """

    task_id: str
    tool_name: str
    call_id: str
    session_id: str
    status: TaskStatus
    created_at: float
    updated_at: float
    result: ToolResult | None = None
    ttl_s: float | None = None

    @property
    def done(self) -> bool:
        """Whether the task has ended."""
        return self.status != "working"


def pending_task(outcome: CallOutcome) -> str | None:
    """The id of the task ``outcome`` was handed off to, or ``None`` when it is not pending."""
    result = outcome.result
    if type(result) is not Ok or result.structured is None:
        return None
    task = result.structured.get("task")
    if isinstance(task, dict) and task.get("status") == "working":
        task_id = task.get("id")
        return task_id if isinstance(task_id, str) else None
    return None


class _Running:
    """A task of this process, while it runs (and for a moment after)."""

    __slots__ = ("done", "info", "registered", "result", "signal")

    def __init__(self, info: TaskInfo, signal: AbortSignal) -> None:
        self.info = info
        self.signal = signal
        self.result: ToolResult | None = None
        self.done = anyio.Event()
        self.registered = anyio.Event()  # its "working" record is written


class Tasks:
    """The tasks of one registry (``registry.tasks``); see the module docstring.

    Args:
        store: Where task records live; ``None`` uses the registry's key-value backend
            (namespace `TASKS_SCOPE`), or else a store private to this process.
        hand_off_s: When a ``long_running`` tool's call becomes a task (``ctx.hand_off_s``
            overrides it for a call).
        ttl_s: How long a task's record (and result) is kept.
        poll_s: How often another process's task is polled, and how often the process
            running a task looks for a cancellation and refreshes its heartbeat.
    """

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
        self._running: dict[str, _Running] = {}
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
                from toolwire.backends.kv.memory import MemoryKeyValueBackend

                private = MemoryKeyValueBackend().scoped(TASKS_TOOL, TASKS_SCOPE)
                assert isinstance(private, AtomicKeyValueStore)
                store = private
            self._store = store
        return store

    @property
    def running(self) -> list[str]:
        """The ids of the tasks this process runs right now."""
        return [task_id for task_id, task in self._running.items() if not task.done.is_set()]

    # -- the caller's side -------------------------------------------------------------------

    async def get(self, task_id: str, *, session_id: str | None = None) -> TaskInfo | None:
        """The task's state, or ``None`` when there is none (or it is another session's)."""
        local = self._running.get(task_id)
        info: TaskInfo | None
        if local is not None:
            info = _ended(local.info, local.result, cancelled=local.signal.aborted)
        else:
            info = _from_record(task_id, await self.store.get(task_id), self.poll_s)
        if info is None or (session_id is not None and info.session_id != session_id):
            return None
        return info

    async def wait(
        self, task_id: str, *, timeout_s: float | None = None, session_id: str | None = None
    ) -> TaskInfo | None:
        """The task's state once it ended, or as it is when ``timeout_s`` passed; ``None``
        when there is no such task."""
        with anyio.move_on_after(math.inf if timeout_s is None else timeout_s):
            while True:
                local = self._running.get(task_id)
                if local is not None:
                    await local.done.wait()
                    await local.registered.wait()
                    return await self.get(task_id, session_id=session_id)
                info = await self.get(task_id, session_id=session_id)
                if info is None or info.done:
                    return info
                await anyio.sleep(self.poll_s)
        return await self.get(task_id, session_id=session_id)

    async def cancel(self, task_id: str, *, session_id: str | None = None) -> TaskInfo | None:
        """Ask the task to stop (its tool is interrupted as by an abort); its state after the
        request, or ``None`` when there is no such task. Cancelling an ended task changes
        nothing."""
        info = await self.get(task_id, session_id=session_id)
        if info is None or info.done:
            return info
        local = self._running.get(task_id)
        if local is not None:
            local.signal.abort(_CANCELLED)
            await local.done.wait()
            await local.registered.wait()
            return await self.get(task_id, session_id=session_id)
        await _update_record(self.store, task_id, lambda record: record.update(cancel=True))
        return await self.wait(task_id, timeout_s=self.poll_s * 4, session_id=session_id)

    async def list(self, *, session_id: str | None = None) -> list[TaskInfo]:
        """Every task kept in the store (of one session, when named), oldest first."""
        found = []
        for task_id in await self.store.list("task-"):
            info = await self.get(task_id, session_id=session_id)
            if info is not None:
                found.append(info)
        return sorted(found, key=lambda info: info.created_at)

    async def ended(
        self, result: ToolResult, tool_name: str, call_id: str, session_id: str
    ) -> TaskInfo:
        """Record a task that ended before it started (a refused call), for a caller that
        asked for a task whatever happens (MCP's task-augmented ``tools/call``)."""
        now = time.time()
        info = TaskInfo(
            task_id=f"task-{secrets.token_hex(12)}",
            tool_name=tool_name,
            call_id=call_id,
            session_id=session_id,
            status="working",
            created_at=now,
            updated_at=now,
            ttl_s=self.ttl_s,
        )
        done = _ended(info, result)
        await self.store.set(done.task_id, json.dumps(_record(done, result)), self.ttl_s)
        return done

    async def aclose(self) -> None:
        """Cancel the tasks this process runs and wait until their ends are recorded."""
        for task in list(self._running.values()):
            task.signal.abort("the registry closed")
        for task in list(self._running.values()):
            with anyio.move_on_after(5):
                await task.done.wait()
                await task.registered.wait()

    # -- the pipeline's side -----------------------------------------------------------------

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
        now = time.time()
        info = TaskInfo(
            task_id=f"task-{secrets.token_hex(12)}",
            tool_name=tool_name,
            call_id=call_id,
            session_id=session_id,
            status="working",
            created_at=now,
            updated_at=now,
            ttl_s=self.ttl_s,
        )
        running = _Running(info, AbortSignal())
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
            await self.store.set(info.task_id, json.dumps(_record(info, None)), self.ttl_s)
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

    async def _drive(self, running: _Running, work: Work) -> None:
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

    async def _record_end(self, running: _Running) -> None:
        await running.registered.wait()
        info = running.info
        try:
            if info.task_id in self._running:  # handed off: keep the end in the store
                ended = _ended(info, running.result, cancelled=running.signal.aborted)
                running.info = ended
                await self.store.set(
                    info.task_id, json.dumps(_record(ended, ended.result)), self.ttl_s
                )
        except Exception:
            logger.exception("toolwire could not record the end of task %s", info.task_id)
        finally:
            self._running.pop(info.task_id, None)

    async def _watch(self, running: _Running) -> None:
        """While the task runs: look for a cancellation asked by another process, refresh the
        heartbeat."""
        while not running.done.is_set():
            with anyio.move_on_after(self.poll_s):
                await running.done.wait()
            if running.done.is_set():
                return
            try:
                record = await _update_record(
                    self.store, running.info.task_id, lambda r: r.update(beat=time.time())
                )
            except Exception:
                logger.exception("toolwire could not refresh task %s", running.info.task_id)
                continue
            if record is not None and record.get("cancel"):
                running.signal.abort(_CANCELLED)


def _ended(info: TaskInfo, result: ToolResult | None, *, cancelled: bool = False) -> TaskInfo:
    if result is None or info.status != "working":
        return info
    status: TaskStatus = "completed" if isinstance(result, Ok) else "failed"
    if cancelled and isinstance(result, Err) and result.cause == "aborted":
        status = "cancelled"
    return TaskInfo(
        task_id=info.task_id,
        tool_name=info.tool_name,
        call_id=info.call_id,
        session_id=info.session_id,
        status=status,
        created_at=info.created_at,
        updated_at=time.time(),
        result=result,
        ttl_s=info.ttl_s,
    )


def _record(info: TaskInfo, result: ToolResult | None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "tool": info.tool_name,
        "call": info.call_id,
        "session": info.session_id,
        "status": info.status,
        "created": info.created_at,
        "updated": info.updated_at,
        "ttl": info.ttl_s,
        "beat": time.time(),
    }
    if result is not None:
        record["result"] = result_to_dict(result)
    return record


def _from_record(task_id: str, raw: str | None, poll_s: float) -> TaskInfo | None:
    if raw is None:
        return None
    try:
        record = json.loads(raw)
        result = result_from_dict(record["result"]) if "result" in record else None
        info = TaskInfo(
            task_id=task_id,
            tool_name=str(record["tool"]),
            call_id=str(record["call"]),
            session_id=str(record["session"]),
            status=record["status"],
            created_at=float(record["created"]),
            updated_at=float(record["updated"]),
            result=result,
            ttl_s=record.get("ttl"),
        )
    except (ValueError, KeyError, TypeError):
        logger.warning("toolwire: task record %s cannot be read", task_id)
        return None
    if info.status == "working" and time.time() - float(record.get("beat", 0)) > _lost_after(
        poll_s
    ):
        lost = Err(
            f"task {task_id} was lost: the process running it stopped",
            ErrorCode.EXECUTION_FAILED,
            reason="task_lost",
        )
        return _ended(info, lost)
    return info


def _lost_after(poll_s: float) -> float:
    """A working task whose heartbeat is older than this was lost with its process."""
    return max(poll_s * 10, 10.0)


async def _update_record(
    store: AtomicKeyValueStore, task_id: str, change: Callable[[dict[str, Any]], None]
) -> dict[str, Any] | None:
    """Apply ``change`` to a task's record with compare-and-set; the new record, or ``None``
    when there is none (or it cannot be read)."""
    for _ in range(16):
        raw = await store.get(task_id)
        if raw is None:
            return None
        try:
            record = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(record, dict):
            return None
        change(record)
        ttl = record.get("ttl")
        created = float(record.get("created", time.time()))
        left = None if ttl is None else max(created + ttl - time.time(), 1.0)
        if await store.compare_and_set(task_id, raw, json.dumps(record), ttl_seconds=left):
            return record
    return None
