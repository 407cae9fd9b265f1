"""MCP Tasks on a served registry: ``tools/call`` with ``task``, then ``tasks/get``,
``tasks/result``, ``tasks/cancel`` and ``tasks/list`` (protocol 2025-11-25).

A client that sends ``tools/call`` with a ``task`` field gets a ``CreateTaskResult`` at once:
the call runs through the registry with a hand-off time of zero, so it becomes a task of
``registry.tasks`` (`toolwire.execution.tasks`) and its result is kept in the registry's store.
A call refused before it could start (unknown tool, bad arguments, a quota) becomes a task that
has already ended. Then:

- ``tasks/get``: the task's status (``working``, ``completed``, ``failed``, ``cancelled``);
- ``tasks/result``: waits for the end, then answers what ``tools/call`` would have (presented
  the same way, ``isError`` for a failure), tagged with the related-task ``_meta``;
- ``tasks/cancel``: interrupts the tool (an ended task answers ``-32602``);
- ``tasks/list``: the session's tasks.

Tasks belong to their MCP session: another session's task id is answered ``-32602`` like an
unknown one. The server advertises ``capabilities.tasks`` and marks every tool
``execution.taskSupport: "optional"`` on 2025-11-25 connections; a client that does not ask
for a task gets the ordinary synchronous ``tools/call``. The 2026-07-28 protocol moved tasks
to an extension, which this server does not speak: there the ``task`` field is ignored.
"""

from __future__ import annotations

import datetime
import functools
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

import mcp_types as mt
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from toolwire.calls import CallOutcome, make_outcome
from toolwire.context import AbortSignal, ToolContext
from toolwire.execution.tasks import TaskInfo, pending_task

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["RELATED_TASK", "TASKS_PROTOCOL", "serve_tasks"]

TASKS_PROTOCOL = "2025-11-25"
"""The protocol revision whose core has Tasks."""
RELATED_TASK = "io.modelcontextprotocol/related-task"
"""The ``_meta`` key that ties a ``tasks/result`` answer to its task."""
_CAPABILITY: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
_POLL_MS = 500
_ARGS_KEPT = 1024

SessionOf: TypeAlias = Callable[[ServerRequestContext[Any, Any]], str]
"""The toolwire session id of the MCP session a request came in on."""
ContextFor: TypeAlias = Callable[[str], ToolContext]
"""The context a call of that session runs with."""
Present: TypeAlias = Callable[[CallOutcome, dict[str, Any]], Awaitable[dict[str, Any]]]
"""Turns an outcome (and the call's arguments) into the ``tools/call`` wire result."""


def serve_tasks(
    server: Server[Any],
    registry: ToolRegistry,
    session_of: SessionOf,
    context_for: ContextFor,
    present: Present,
) -> None:
    """Serve MCP Tasks for ``registry``'s calls on ``server`` (see the module docstring)."""
    tasks = _TaskMethods(registry, session_of, context_for, present)
    server.middleware.append(tasks.middleware)
    server.add_request_handler("tasks/get", mt.GetTaskRequestParams, tasks.get)
    server.add_request_handler("tasks/result", mt.GetTaskPayloadRequestParams, tasks.result)
    server.add_request_handler("tasks/cancel", mt.CancelTaskRequestParams, tasks.cancel)
    server.add_request_handler("tasks/list", mt.PaginatedRequestParams, tasks.list)


class _TaskMethods:
    """The handlers, sharing the registry and the session mapping."""

    def __init__(
        self,
        registry: ToolRegistry,
        session_of: SessionOf,
        context_for: ContextFor,
        present: Present,
    ) -> None:
        self.registry = registry
        self.session_of = session_of
        self.context_for = context_for
        self.present = present
        self.args: OrderedDict[str, dict[str, Any]] = OrderedDict()  # task id → arguments

    async def middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Answer a task-augmented ``tools/call`` with a task; advertise the capability and
        the tools' task support on 2025-11-25 connections."""
        method = ctx.method
        if method == "tools/call" and ctx.protocol_version == TASKS_PROTOCOL:
            params = ctx.params or {}
            if isinstance(params.get("task"), Mapping):
                return await self._create(ctx, mt.CallToolRequestParams.model_validate(params))
        result = await call_next(ctx)
        if method == "initialize" and isinstance(result, dict):
            if result.get("protocolVersion") == TASKS_PROTOCOL:
                result.setdefault("capabilities", {})["tasks"] = _CAPABILITY
        elif method == "tools/list" and ctx.protocol_version == TASKS_PROTOCOL:
            for listed in result.get("tools", []) if isinstance(result, dict) else []:
                listed.setdefault("execution", {"taskSupport": "optional"})
        return result

    async def _create(
        self, ctx: ServerRequestContext[Any, Any], params: mt.CallToolRequestParams
    ) -> dict[str, Any]:
        session_id = self.session_of(ctx)
        arguments = params.arguments or {}
        call_id = f"task-call-{ctx.request_id}" if ctx.request_id is not None else "task-call"
        tool_ctx = self.context_for(session_id).derive(abort_signal=AbortSignal(), hand_off_s=0.0)
        outcome = await self.registry.execute(params.name, arguments, tool_ctx, call_id=call_id)
        task_id = pending_task(outcome)
        tasks = self.registry.tasks
        if task_id is not None:
            info = await tasks.get(task_id)
        else:  # refused before it could start: a task that has already ended
            info = await tasks.ended(outcome.result, outcome.name, call_id, session_id)
        assert info is not None
        self.args[info.task_id] = dict(arguments)
        while len(self.args) > _ARGS_KEPT:  # only for presenting; a result needs none
            self.args.popitem(last=False)
        return {"task": _wire(info, tasks.ttl_s)}

    async def _find(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> TaskInfo:
        info = await self.registry.tasks.get(task_id, session_id=self.session_of(ctx))
        if info is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Task not found: {task_id}")
        return info

    async def get(
        self, ctx: ServerRequestContext[Any, Any], params: mt.GetTaskRequestParams
    ) -> dict[str, Any]:
        """``tasks/get``: the task's status."""
        return _wire(await self._find(ctx, params.task_id), self.registry.tasks.ttl_s)

    async def result(
        self, ctx: ServerRequestContext[Any, Any], params: mt.GetTaskPayloadRequestParams
    ) -> dict[str, Any]:
        """``tasks/result``: wait for the end, then the ``tools/call`` result."""
        info = await self._find(ctx, params.task_id)
        if not info.done:
            waited = await self.registry.tasks.wait(info.task_id, session_id=info.session_id)
            info = waited if waited is not None else info
        assert info.result is not None
        outcome = make_outcome(
            info.call_id, info.tool_name, info.result, 0.0, False, self.args.get(info.task_id)
        )
        answer = await self.present(outcome, self.args.get(info.task_id, {}))
        answer["_meta"] = {RELATED_TASK: {"taskId": info.task_id}}
        return answer

    async def cancel(
        self, ctx: ServerRequestContext[Any, Any], params: mt.CancelTaskRequestParams
    ) -> dict[str, Any]:
        """``tasks/cancel``: interrupt the tool; an ended task cannot be cancelled."""
        info = await self._find(ctx, params.task_id)
        if info.done:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Cannot cancel task {info.task_id}: it already ended ({info.status})",
            )
        cancelled = await self.registry.tasks.cancel(info.task_id, session_id=info.session_id)
        return _wire(cancelled or info, self.registry.tasks.ttl_s)

    async def list(
        self, ctx: ServerRequestContext[Any, Any], params: mt.PaginatedRequestParams
    ) -> dict[str, Any]:
        """``tasks/list``: the session's tasks, oldest first (one page)."""
        found = await self.registry.tasks.list(session_id=self.session_of(ctx))
        return {"tasks": [_wire(info, self.registry.tasks.ttl_s) for info in found]}


def _wire(info: TaskInfo, ttl_s: float | None) -> dict[str, Any]:
    """A task in its wire shape."""
    task: dict[str, Any] = {
        "taskId": info.task_id,
        "status": info.status,
        "createdAt": _iso(info.created_at),
        "lastUpdatedAt": _iso(info.updated_at),
        "ttl": None if ttl_s is None else round(ttl_s * 1000),
        "pollInterval": _POLL_MS,
    }
    if info.result is not None and info.status != "completed":
        message = getattr(info.result, "error", None)
        if isinstance(message, str):
            task["statusMessage"] = message[:500]
    return task


@functools.lru_cache(maxsize=256)
def _iso(stamp: float) -> str:
    moment = datetime.datetime.fromtimestamp(stamp, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
