"""The 2026-07-28 Tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663): its names and wire
shapes, shared by the server (`toolwire.mcp.server._tasks`) and the client
(`toolwire.mcp.client.tasks`).

On 2026-07-28 tasks are an extension instead of core protocol: a client declares it in each
request's capabilities (``extensions``), a server in ``server/discover``'s. The *server* decides
per ``tools/call`` whether to answer a task: a `CreateTaskResult` (``resultType: "task"`` and the
task's fields) instead of the ``CallToolResult``. The client then polls ``tasks/get``, whose
answer carries the final ``result`` (or the JSON-RPC ``error``) once the task ended; there is no
``tasks/result`` and no ``tasks/list``. ``tasks/update`` answers a task's ``inputRequests`` and
``tasks/cancel`` asks for it to stop; both are acknowledged with an empty result.

A tool's own failure (``isError: true``) is a ``completed`` task; ``failed`` is kept for
JSON-RPC errors. Requests for ``tasks/*`` name the task in the ``Mcp-Name`` header on
streamable HTTP.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import mcp_types as mt
from pydantic import Field

__all__ = [
    "EXTENSION_AD",
    "TASKS_EXTENSION",
    "CancelTaskRequest",
    "CreateTaskResult",
    "GetTaskRequest",
    "GetTaskResult",
    "TaskIdParams",
    "UpdateTaskParams",
    "UpdateTaskRequest",
    "declares_tasks",
    "missing_capability_data",
]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier."""
EXTENSION_AD: dict[str, Any] = {}
"""Its settings in a capability ad (none are defined: an empty object means support)."""

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class TaskIdParams(mt.RequestParams):
    """``tasks/get`` and ``tasks/cancel``: the task."""

    task_id: str = Field(alias="taskId")


class UpdateTaskParams(TaskIdParams):
    """``tasks/update``: answers to the task's outstanding ``inputRequests``."""

    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


class GetTaskRequest(mt.Request[TaskIdParams, Literal["tasks/get"]]):
    """``tasks/get`` (its ``taskId`` goes in the ``Mcp-Name`` header)."""

    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param = "taskId"


class CancelTaskRequest(mt.Request[TaskIdParams, Literal["tasks/cancel"]]):
    """``tasks/cancel``."""

    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param = "taskId"


class UpdateTaskRequest(mt.Request[UpdateTaskParams, Literal["tasks/update"]]):
    """``tasks/update``."""

    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams
    name_param = "taskId"


class _Task(mt.Result):
    """The fields every task shape has."""

    task_id: str = Field(alias="taskId")
    status: TaskStatus
    status_message: str | None = Field(default=None, alias="statusMessage")
    created_at: str = Field(alias="createdAt")
    last_updated_at: str = Field(alias="lastUpdatedAt")
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class CreateTaskResult(_Task):
    """A ``tools/call`` answered with a task instead of its result."""

    result_type: Literal["task"] = Field(default="task", alias="resultType")


class GetTaskResult(_Task):
    """``tasks/get``: the task, with its ``result`` once ``completed``, its ``error`` once
    ``failed`` and its ``inputRequests`` while ``input_required``."""

    result_type: str | None = Field(default="complete", alias="resultType")
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = Field(default=None, alias="inputRequests")

    terminal: ClassVar[frozenset[str]] = frozenset({"completed", "failed", "cancelled"})

    @property
    def done(self) -> bool:
        """Whether the task has ended."""
        return self.status in self.terminal


def declares_tasks(capabilities: mt.ClientCapabilities | None) -> bool:
    """Whether a request's client capabilities declare the extension."""
    extensions = capabilities.extensions if capabilities is not None else None
    return bool(extensions) and TASKS_EXTENSION in (extensions or {})


def missing_capability_data() -> dict[str, Any]:
    """The ``data`` of the ``-32021`` error a request that needs the extension gets when its
    client did not declare it."""
    return {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: EXTENSION_AD}}}
