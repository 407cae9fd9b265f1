"""A task's state (`TaskInfo`) and its record in the task store.

A record is a JSON object kept under the task id in the store `TASKS_SCOPE` names: the call it
came from, its status, its result once it ended, and a heartbeat the process running it
refreshes, so a task whose process died reads ``failed`` (``task_lost``) instead of ``working``
forever. Records change by compare-and-set only (`update_record`). See
`toolwire.execution.tasks`.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from toolwire.calls import CallOutcome
from toolwire.capabilities.seams import AtomicKeyValueStore
from toolwire.results import Err, ErrorCode, Ok, ToolResult, result_from_dict, result_to_dict

__all__ = [
    "TASKS_SCOPE",
    "TASKS_TOOL",
    "TaskInfo",
    "TaskStatus",
    "from_record",
    "lost_after",
    "new_task",
    "pending_task",
    "to_record",
    "update_record",
    "with_end",
]

logger = logging.getLogger("toolwire.execution.tasks")

TASKS_TOOL = "toolwire-tasks"
"""The tool name the task store is asked for (``kv_store_factory(TASKS_TOOL, ...)``)."""
TASKS_SCOPE = f"tool:{TASKS_TOOL}"
"""Its scope: private to the tasks, shared by every process on the same store."""
TaskStatus: TypeAlias = Literal["working", "completed", "failed", "cancelled"]
"""A task's state, as MCP names them: an ``Ok`` completes it, an ``Err`` fails it."""


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


def new_task(tool_name: str, call_id: str, session_id: str, ttl_s: float) -> TaskInfo:
    """A ``working`` task with a fresh id (``task-`` and 24 hex digits), created now."""
    now = time.time()
    return TaskInfo(
        task_id=f"task-{secrets.token_hex(12)}",
        tool_name=tool_name,
        call_id=call_id,
        session_id=session_id,
        status="working",
        created_at=now,
        updated_at=now,
        ttl_s=ttl_s,
    )


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


def with_end(info: TaskInfo, result: ToolResult | None, *, cancelled: bool = False) -> TaskInfo:
    """``info`` ended with ``result`` (``completed``, ``failed``, or ``cancelled`` when it
    was aborted by a cancellation); unchanged while there is no result or once it ended."""
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


def to_record(info: TaskInfo, result: ToolResult | None) -> dict[str, Any]:
    """The store's form of ``info`` (JSON-ready), its heartbeat set to now."""
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


def from_record(task_id: str, raw: str | None, poll_s: float) -> TaskInfo | None:
    """The task a stored record describes (``failed`` with ``task_lost`` when it is working
    but its heartbeat is older than `lost_after`), or ``None`` when it cannot be read."""
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
    if info.status == "working" and time.time() - float(record.get("beat", 0)) > lost_after(poll_s):
        lost = Err(
            f"task {task_id} was lost: the process running it stopped",
            ErrorCode.EXECUTION_FAILED,
            reason="task_lost",
        )
        return with_end(info, lost)
    return info


def lost_after(poll_s: float) -> float:
    """A working task whose heartbeat is older than this was lost with its process."""
    return max(poll_s * 10, 10.0)


async def update_record(
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
