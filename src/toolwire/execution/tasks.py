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

import json
import math

import anyio

from toolwire.execution.task_records import (
    TASKS_SCOPE,
    TASKS_TOOL,
    TaskInfo,
    TaskStatus,
    from_record,
    new_task,
    pending_task,
    to_record,
    update_record,
    with_end,
)
from toolwire.execution.task_runner import CANCELLED, DEFAULT_HAND_OFF_S, TaskRunner
from toolwire.results import ToolResult

__all__ = [
    "DEFAULT_HAND_OFF_S",
    "TASKS_SCOPE",
    "TASKS_TOOL",
    "TaskInfo",
    "TaskStatus",
    "Tasks",
    "pending_task",
]


class Tasks(TaskRunner):
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

    async def get(self, task_id: str, *, session_id: str | None = None) -> TaskInfo | None:
        """The task's state, or ``None`` when there is none (or it is another session's)."""
        local = self._running.get(task_id)
        info: TaskInfo | None
        if local is not None:
            info = with_end(local.info, local.result, cancelled=local.signal.aborted)
        else:
            info = from_record(task_id, await self.store.get(task_id), self.poll_s)
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
            local.signal.abort(CANCELLED)
            await local.done.wait()
            await local.registered.wait()
            return await self.get(task_id, session_id=session_id)
        await update_record(self.store, task_id, lambda record: record.update(cancel=True))
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
        info = new_task(tool_name, call_id, session_id, self.ttl_s)
        done = with_end(info, result)
        await self.store.set(done.task_id, json.dumps(to_record(done, result)), self.ttl_s)
        return done

    async def aclose(self) -> None:
        """Cancel the tasks this process runs and wait until their ends are recorded."""
        for task in list(self._running.values()):
            task.signal.abort("the registry closed")
        for task in list(self._running.values()):
            with anyio.move_on_after(5):
                await task.done.wait()
                await task.registered.wait()
