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
- ``tasks/list``: the tasks of the session (and principal).

Tasks belong to whoever created them: to the credential's principal when the server
authenticates (`toolwire.mcp.server.task_records`), and on the handshake revision also to the MCP
session. A task of another principal or session is answered exactly like an unknown one
(``-32602``), by every ``tasks/*`` method on both revisions. What a task's result is presented
with (its call's arguments) is kept with that owner on the task store, so any replica on a
shared store answers ``tasks/get`` and ``tasks/result`` the same; ``tasks/cancel`` on a replica
that does not run the task marks the record, and the replica running it stops the tool at its
next poll of the record. The server advertises ``capabilities.tasks`` and marks every tool
``execution.taskSupport: "optional"`` on 2025-11-25 connections; a client that does not ask
for a task gets the ordinary synchronous ``tools/call``.

On 2026-07-28 tasks are the ``io.modelcontextprotocol/tasks`` extension
(`toolwire.mcp._task_extension`), advertised in ``server/discover``. The server decides: a call
from a client that declares the extension and is still running at its hand-off time (a
``long_running`` tool) is answered with a task (``resultType: "task"``) instead of the
"still running" text, and ``tasks/get`` answers its state and, once it ended, its result
(a tool's failure is a ``completed`` task whose result has ``isError``; ``failed`` means a
JSON-RPC error, such as a task lost with its process). ``tasks/update`` is acknowledged
(toolwire's tasks never wait for input) and ``tasks/cancel`` interrupts the tool; a client
that did not declare the extension is answered ``-32021``. The ``task`` field of 2025-11-25
is ignored there, and ``tasks/result`` and ``tasks/list`` do not exist.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

import mcp_types as mt
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND
from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY

from toolwire.calls import CallOutcome, ToolCall, make_outcome
from toolwire.context import AbortSignal, ToolContext
from toolwire.execution.tasks import TaskInfo, pending_task
from toolwire.mcp._task_extension import (
    EXTENSION_AD,
    TASKS_EXTENSION,
    TaskIdParams,
    UpdateTaskParams,
    declares_tasks,
    missing_capability_data,
)
from toolwire.mcp.revision import is_stateless, supports_core_tasks
from toolwire.mcp.server.auth._principals import request_principal
from toolwire.mcp.server.session_tools import SessionTools
from toolwire.mcp.server.task_records import TaskRecords, request_owner
from toolwire.principals import Principal
from toolwire.results import Err

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["RELATED_TASK", "serve_tasks"]

RELATED_TASK = "io.modelcontextprotocol/related-task"
"""The ``_meta`` key that ties a ``tasks/result`` answer to its task."""
_CAPABILITY: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
_POLL_MS = 500

SessionOf: TypeAlias = Callable[[ServerRequestContext[Any, Any]], str]
"""The toolwire session id of the MCP session a request came in on."""
ContextFor: TypeAlias = Callable[[str, Principal], ToolContext]
"""The context a call of that session and principal runs with."""
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
    server.add_request_handler("tasks/get", TaskIdParams, tasks.get)
    server.add_request_handler("tasks/result", mt.GetTaskPayloadRequestParams, tasks.result)
    server.add_request_handler("tasks/cancel", TaskIdParams, tasks.cancel)
    server.add_request_handler("tasks/list", mt.PaginatedRequestParams, tasks.list)
    server.add_request_handler("tasks/update", UpdateTaskParams, tasks.update)


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
        self.records = TaskRecords(registry.tasks)  # owner and arguments, on the task store
        self.view = SessionTools(registry)  # the deferred tools each session found

    async def middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Answer a task-augmented ``tools/call`` with a task; advertise the capability and
        the tools' task support on 2025-11-25 connections."""
        method = ctx.method
        if method == "tools/call" and supports_core_tasks(ctx.protocol_version):
            params = ctx.params or {}
            if isinstance(params.get("task"), Mapping):
                return await self._create(ctx, mt.CallToolRequestParams.model_validate(params))
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        if method == "tools/call":
            return await self._handed_off(ctx, result)
        if method == "initialize":
            if supports_core_tasks(result.get("protocolVersion")):
                result.setdefault("capabilities", {})["tasks"] = _CAPABILITY
        elif method == "server/discover":
            extensions = result.setdefault("capabilities", {}).setdefault("extensions", {})
            extensions[TASKS_EXTENSION] = EXTENSION_AD
        elif method == "tools/list" and supports_core_tasks(ctx.protocol_version):
            for listed in result.get("tools", []):
                listed.setdefault("execution", {"taskSupport": "optional"})
        return result

    async def _handed_off(
        self, ctx: ServerRequestContext[Any, Any], answer: dict[str, Any]
    ) -> dict[str, Any]:
        """A call's answer. When the call was handed off to a task of this session, the task's
        owner and arguments are recorded and, for a 2026-07-28 client that declares the
        extension, the answer is a `CreateTaskResult`; else ``answer`` as it is."""
        structured = answer.get("structuredContent")
        pending = structured.get("task") if isinstance(structured, dict) else None
        if not (isinstance(pending, dict) and pending.get("status") == "working"):
            return answer
        task_id = pending.get("id")
        info = (
            await self.registry.tasks.get(task_id, session_id=self.session_of(ctx))
            if isinstance(task_id, str)
            else None
        )
        if info is None or info.call_id != str(ctx.request_id):
            return answer  # a tool's own "task" value, not a hand-off of this call
        arguments = (ctx.params or {}).get("arguments")
        await self.records.keep(
            info.task_id,
            request_owner(ctx.request),
            arguments if isinstance(arguments, dict) else {},
        )
        if not (_modern(ctx) and declares_tasks(_capabilities(ctx))):
            return answer
        created = {"resultType": "task", **_wire(info, self.registry.tasks.ttl_s, modern=True)}
        if "_meta" in answer:  # the serverInfo stamp of the call's answer
            created["_meta"] = answer["_meta"]
        return created

    async def _create(
        self, ctx: ServerRequestContext[Any, Any], params: mt.CallToolRequestParams
    ) -> dict[str, Any]:
        session_id = self.session_of(ctx)
        arguments = params.arguments or {}
        call_id = f"task-call-{ctx.request_id}" if ctx.request_id is not None else "task-call"
        principal = request_principal(ctx.request)
        tool_ctx = self.context_for(session_id, principal).derive(
            abort_signal=AbortSignal(), hand_off_s=0.0
        )
        gate = await self.view.gate(params.name, session_id, principal)  # found deferred tools
        call = ToolCall(id=call_id, name=params.name, args=arguments)
        (outcome,) = await self.registry.execute_parallel([call], tool_ctx, snapshot=gate)
        task_id = pending_task(outcome)
        tasks = self.registry.tasks
        if task_id is not None:
            info = await tasks.get(task_id)
        else:  # refused before it could start: a task that has already ended
            info = await tasks.ended(outcome.result, outcome.name, call_id, session_id)
        assert info is not None
        await self.records.keep(info.task_id, request_owner(ctx.request), arguments)
        return {"task": _wire(info, tasks.ttl_s)}

    async def _find(
        self, ctx: ServerRequestContext[Any, Any], task_id: str
    ) -> tuple[TaskInfo, dict[str, Any]]:
        """The task (and its call's arguments) when it is the caller's: of its session and
        created by its principal. Any other task is answered as an unknown one."""
        info = await self.registry.tasks.get(task_id, session_id=self.session_of(ctx))
        record = await self.records.read(task_id) if info is not None else None
        owner = record.owner if record is not None else None
        if info is None or owner != request_owner(ctx.request):
            raise MCPError(code=INVALID_PARAMS, message=f"Task not found: {task_id}")
        return info, record.arguments if record is not None else {}

    async def get(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> dict[str, Any]:
        """``tasks/get``: the task's status (on 2026-07-28, with its result once it ended)."""
        if _modern(ctx):
            self._check_declared(ctx)
            info, arguments = await self._find(ctx, params.task_id)
            return await self._detailed(info, arguments)
        info, _ = await self._find(ctx, params.task_id)
        return _wire(info, self.registry.tasks.ttl_s)

    async def _detailed(self, info: TaskInfo, arguments: dict[str, Any]) -> dict[str, Any]:
        """A 2026-07-28 ``tasks/get`` answer (``DetailedTask``)."""
        wire = _wire(info, self.registry.tasks.ttl_s, modern=True)
        if info.status == "cancelled" or info.result is None:
            return wire
        if isinstance(info.result, Err) and info.result.reason == "task_lost":
            wire["status"] = "failed"  # no answer of the tool: a JSON-RPC error
            wire["error"] = {"code": INTERNAL_ERROR, "message": info.result.error}
            return wire
        wire["status"] = "completed"  # the tool answered, maybe with isError
        wire["result"] = await self._present(info, arguments)
        return wire

    async def _present(self, info: TaskInfo, arguments: dict[str, Any]) -> dict[str, Any]:
        assert info.result is not None
        outcome = make_outcome(info.call_id, info.tool_name, info.result, 0.0, False, arguments)
        return await self.present(outcome, arguments)

    async def result(
        self, ctx: ServerRequestContext[Any, Any], params: mt.GetTaskPayloadRequestParams
    ) -> dict[str, Any]:
        """``tasks/result``: wait for the end, then the ``tools/call`` result."""
        _legacy_only(ctx)
        info, arguments = await self._find(ctx, params.task_id)
        if not info.done:
            waited = await self.registry.tasks.wait(info.task_id, session_id=info.session_id)
            info = waited if waited is not None else info
        answer = await self._present(info, arguments)
        answer["_meta"] = {RELATED_TASK: {"taskId": info.task_id}}
        return answer

    async def update(
        self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskParams
    ) -> dict[str, Any]:
        """``tasks/update`` (2026-07-28): acknowledged; toolwire's tasks ask for no input, so
        every response is for a key that is not outstanding, which the extension says to
        ignore."""
        if not _modern(ctx):
            raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data="tasks/update")
        self._check_declared(ctx)
        await self._find(ctx, params.task_id)
        return {}

    async def cancel(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> dict[str, Any]:
        """``tasks/cancel``: interrupt the tool; an ended task cannot be cancelled (on
        2026-07-28 every known task is acknowledged: cancelling is a request there)."""
        if _modern(ctx):
            self._check_declared(ctx)
            info, _ = await self._find(ctx, params.task_id)
            if not info.done:
                await self.registry.tasks.cancel(info.task_id, session_id=info.session_id)
            return {}
        info, _ = await self._find(ctx, params.task_id)
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
        """``tasks/list``: the tasks of the session and the principal, oldest first (one
        page)."""
        _legacy_only(ctx)
        principal = request_owner(ctx.request)
        found = await self.registry.tasks.list(session_id=self.session_of(ctx))
        mine = []
        for info in found:
            record = await self.records.read(info.task_id)
            if (record.owner if record is not None else None) == principal:
                mine.append(_wire(info, self.registry.tasks.ttl_s))
        return {"tasks": mine}

    def _check_declared(self, ctx: ServerRequestContext[Any, Any]) -> None:
        if not declares_tasks(_capabilities(ctx)):
            raise MCPError(
                code=MISSING_REQUIRED_CLIENT_CAPABILITY,
                message="Missing required client capability",
                data=missing_capability_data(),
            )


def _modern(ctx: ServerRequestContext[Any, Any]) -> bool:
    return is_stateless(ctx.protocol_version)


def _capabilities(ctx: ServerRequestContext[Any, Any]) -> mt.ClientCapabilities | None:
    """The capabilities the client declared (on 2026-07-28: in this request)."""
    return ctx.session.client_capabilities


def _legacy_only(ctx: ServerRequestContext[Any, Any]) -> None:
    """``tasks/result`` and ``tasks/list`` are not part of the 2026-07-28 extension."""
    if _modern(ctx):
        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=ctx.method)


def _wire(info: TaskInfo, ttl_s: float | None, *, modern: bool = False) -> dict[str, Any]:
    """A task in its 2025-11-25 wire shape, or (``modern``) in the 2026-07-28 extension's,
    whose durations are named ``ttlMs`` and ``pollIntervalMs`` (without ``result``/``error``)."""
    ttl, poll = ("ttlMs", "pollIntervalMs") if modern else ("ttl", "pollInterval")
    task: dict[str, Any] = {
        "taskId": info.task_id,
        "status": info.status,
        "createdAt": _iso(info.created_at),
        "lastUpdatedAt": _iso(info.updated_at),
        ttl: None if ttl_s is None else round(ttl_s * 1000),
        poll: _POLL_MS,
    }
    message = getattr(info.result, "error", None)
    if isinstance(message, str) and info.status != "completed":
        task["statusMessage"] = message[:500]
    return task


@functools.lru_cache(maxsize=256)
def _iso(stamp: float) -> str:
    moment = datetime.datetime.fromtimestamp(stamp, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
