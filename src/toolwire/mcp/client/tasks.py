"""Calling a tool that runs as a task on the server, on both protocol generations.

- **2025-11-25** (tasks in the core protocol): a tool listed with ``execution.taskSupport:
  "required"`` must be called with task augmentation. `call_as_task` sends ``tools/call`` with a
  ``task`` field, polls ``tasks/get`` at the server's ``pollInterval`` until the task ended,
  then fetches its result with ``tasks/result``.
- **2026-07-28** (the ``io.modelcontextprotocol/tasks`` extension): the server decides per call
  whether to answer with a task. `TasksClientExtension`, given to the SDK's ``Client``,
  declares the extension on every request and finishes a task answer the same way, polling
  ``tasks/get`` (whose answer carries the result once the task ended). A task that needs input
  (``input_required``) has each new request of its ``inputRequests`` answered by the client's
  sampling, elicitation or roots callbacks (the host's `ClientHandlers`), sent back with
  ``tasks/update``. ``Client.call_tool`` then returns the final ``CallToolResult`` as for any
  other call.

Progress of a task reaches the caller in two ways. Each poll's ``statusMessage``, when it
changed, goes to the sink `task_status_to` installed around the call (on both revisions).
On 2025-11-25 `call_as_task` also puts a ``progressToken`` of its own in the call's ``_meta``,
and the ``notifications/progress`` the server sends with it while the task runs go to the
call's ``progress_callback``: the SDK routes progress only to a request still awaiting its
answer, and the task-augmented call is answered at once, so the link's message handler hands
these to `route_task_progress`. A 2026-07-28 task's progress notifications are not followed:
on streamable HTTP that revision has no stream left to carry them once the call is answered
(no session, no GET stream), and the SDK gives the extension's resolver no progress callback.

Either way a call that is cancelled (the toolwire call aborted or timed out) while its task
runs asks the server to stop it with ``tasks/cancel`` before the cancellation goes on. A task
that ends without a result (cancelled by the server, lost, failed with a JSON-RPC error)
raises `TaskFailure`: the tool may have run, so the caller answers ``execution_failed``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Any, TypeAlias

import anyio
import mcp_types as mt
from mcp.client.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from toolwire.mcp._task_extension import (
    EXTENSION_AD,
    TASKS_EXTENSION,
    CancelTaskRequest,
    CreateTaskResult,
    GetTaskRequest,
    GetTaskResult,
    TaskIdParams,
    UpdateTaskParams,
    UpdateTaskRequest,
)
from toolwire.mcp.revision import supports_core_tasks

__all__ = [
    "DEFAULT_POLL_S",
    "TaskFailure",
    "TasksClientExtension",
    "call_as_task",
    "route_task_progress",
    "supports_task_calls",
    "task_status_to",
]

logger = logging.getLogger("toolwire.mcp")

DEFAULT_POLL_S = 1.0
"""How often a task is polled when the server suggests no interval."""
MIN_POLL_S = 0.01
"""The shortest wait between two polls, whatever the server suggests."""
CANCEL_WAIT_S = 5.0
"""How long ``tasks/cancel`` may take when a call is abandoned."""
_INPUT_REQUEST: TypeAdapter[mt.InputRequest] = TypeAdapter(mt.InputRequest)

ProgressFn: TypeAlias = Callable[[float, float | None, str | None], Awaitable[None]]
"""Receives a progress notification's ``progress``, ``total`` and ``message``."""
StatusFn: TypeAlias = Callable[[str], Awaitable[None]]
"""Receives a task's new ``statusMessage``."""

_STATUS: ContextVar[StatusFn | None] = ContextVar("toolwire_task_status", default=None)
_ROUTES: dict[tuple[int, str], ProgressFn] = {}  # (id of the client, token), during a call


@contextmanager
def task_status_to(sink: StatusFn) -> Iterator[None]:
    """Within the block, a task this call follows (on either revision) hands each new
    ``statusMessage`` of its polls to ``sink``."""
    token = _STATUS.set(sink)
    try:
        yield
    finally:
        _STATUS.reset(token)


async def route_task_progress(client: Client, notification: mt.ProgressNotification) -> bool:
    """Hand a ``notifications/progress`` to the `call_as_task` of ``client`` whose token it carries;
    whether one took it. For the client's message handler (`toolwire.mcp.client.link`)."""
    params = notification.params
    forward = _ROUTES.get((id(client), str(params.progress_token)))
    if forward is None:
        return False
    try:
        await forward(params.progress, params.total, params.message)
    except Exception:  # a broken emitter must not break the client's message loop
        logger.exception("forwarding a task's progress failed")
    return True


@contextmanager
def _progress_routed(client: Client, forward: ProgressFn | None) -> Iterator[str | None]:
    """A fresh progress token routed to ``forward`` within the block (``None``: none)."""
    if forward is None:
        yield None
        return
    token = f"toolwire-task-{secrets.token_hex(8)}"
    key = (id(client), token)  # the client outlives the call, so its id is not reused
    _ROUTES[key] = forward
    try:
        yield token
    finally:
        del _ROUTES[key]


class _StatusMessages:
    """Hands each new ``statusMessage`` to the sink of `task_status_to` (if any)."""

    def __init__(self) -> None:
        self.sink = _STATUS.get()
        self.last: str | None = None

    async def saw(self, message: str | None) -> None:
        if self.sink is None or not message or message == self.last:
            return
        self.last = message
        try:
            await self.sink(message)
        except Exception:  # the caller's emitter must not fail the call
            logger.exception("forwarding a task's status message failed")


class TaskFailure(Exception):
    """A task ended without a result the tool gave (see the module docstring).

    Attributes:
        cause: ``mcp_task_cancelled``, ``mcp_task_lost`` or ``mcp_task_failed``.
    """

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


def supports_task_calls(client: Client) -> bool:
    """Whether ``client``'s server takes task-augmented ``tools/call`` (2025-11-25 core tasks:
    it must declare ``capabilities.tasks.requests.tools.call``)."""
    if not supports_core_tasks(client.protocol_version):
        return False
    tasks = client.server_capabilities.tasks
    requests = tasks.requests if tasks is not None else None
    tools = requests.tools if requests is not None else None
    return tools is not None and tools.call is not None


async def call_as_task(
    client: Client,
    name: str,
    arguments: dict[str, Any],
    *,
    read_timeout_s: float,
    ttl_s: float | None = None,
    progress_callback: ProgressFn | None = None,
) -> mt.CallToolResult:
    """Call ``name`` with task augmentation (2025-11-25) and wait for its result.

    Args:
        client: A connected client whose server `supports_task_calls`.
        name: The remote tool.
        arguments: Its arguments.
        read_timeout_s: How long each request may take (the whole call is bounded by the
            caller's cancellation).
        ttl_s: How long the server should keep the task (``None``: its default).
        progress_callback: Receives the progress notifications the server sends for the
            task (see the module docstring).

    Raises:
        MCPError: The server refused a request (the call, or a poll).
        TaskFailure: The task was cancelled by the server or is gone.
        RuntimeError: The result does not match the tool's ``outputSchema``.
    """
    with _progress_routed(client, progress_callback) as progress_token:
        return await _call_as_task(client, name, arguments, read_timeout_s, ttl_s, progress_token)


async def _call_as_task(
    client: Client,
    name: str,
    arguments: dict[str, Any],
    read_timeout_s: float,
    ttl_s: float | None,
    progress_token: str | None,
) -> mt.CallToolResult:
    session = client.session
    params: dict[str, Any] = {"name": name, "arguments": arguments, "task": {}}
    if ttl_s is not None:
        params["task"]["ttl"] = round(ttl_s * 1000)
    if progress_token is not None:
        params["_meta"] = {"progressToken": progress_token}
    # The SDK checks every tools/call answer against CallToolResult, so the CreateTaskResult
    # of a task-augmented call is read off its dispatcher (the raw JSON-RPC result).
    raw = await session._dispatcher.send_raw_request(
        "tools/call", params, {"timeout": read_timeout_s}
    )
    task = mt.CreateTaskResult.model_validate(raw).task
    statuses = _StatusMessages()
    await statuses.saw(task.status_message)

    async def poll() -> tuple[str, float | None]:
        request = mt.GetTaskRequest(params=mt.GetTaskRequestParams(task_id=task.task_id))
        state = await session.send_request(request, mt.GetTaskResult, read_timeout_s)
        await statuses.saw(state.status_message)
        return state.status, state.poll_interval

    async def cancel() -> None:
        request = mt.CancelTaskRequest(params=mt.CancelTaskRequestParams(task_id=task.task_id))
        await session.send_request(request, mt.CancelTaskResult, CANCEL_WAIT_S)

    async with _cancelling_on_abandon(cancel, task.task_id):
        status = await _until_ended(task.task_id, task.status, task.poll_interval, poll)
    if status == "cancelled":
        raise TaskFailure(f"the server cancelled task {task.task_id}", "mcp_task_cancelled")
    request = mt.GetTaskPayloadRequest(params=mt.GetTaskPayloadRequestParams(task_id=task.task_id))
    result = await session.send_request(request, mt.CallToolResult, read_timeout_s)
    if not result.is_error:
        await session.validate_tool_result(name, result)
    return result


class TasksClientExtension(ClientExtension):
    """The 2026-07-28 Tasks extension for the SDK's ``Client`` (``extensions=[...]``): it
    declares ``io.modelcontextprotocol/tasks`` and turns a task answer into the call's final
    result (see the module docstring)."""

    identifier = TASKS_EXTENSION

    def settings(self) -> dict[str, Any]:
        """The extension's capability ad (no settings)."""
        return dict(EXTENSION_AD)

    def claims(self) -> Sequence[ResultClaim[Any]]:
        """``resultType: "task"`` on ``tools/call``, finished by polling ``tasks/get``."""
        return (ResultClaim(result_type="task", model=CreateTaskResult, resolve=_resolve),)


async def _resolve(created: CreateTaskResult, ctx: ClaimContext) -> mt.CallToolResult:
    session: ClientSession = ctx.session
    task_id = created.task_id
    timeout = ctx.read_timeout_seconds
    last: list[GetTaskResult] = []
    statuses = _StatusMessages()
    await statuses.saw(created.status_message)
    answered: set[str] = set()

    async def poll() -> tuple[str, float | None]:
        request = GetTaskRequest(params=TaskIdParams(taskId=task_id))
        state = await session.send_request(request, GetTaskResult, timeout)
        last[:] = [state]
        await statuses.saw(state.status_message)
        if state.status == "input_required" and state.input_requests:
            await _answer_inputs(session, task_id, state.input_requests, answered, timeout)
        interval = state.poll_interval_ms
        return state.status, None if interval is None else float(interval)

    async def cancel() -> None:
        request = CancelTaskRequest(params=TaskIdParams(taskId=task_id))
        await session.send_request(request, mt.EmptyResult, CANCEL_WAIT_S)

    async with _cancelling_on_abandon(cancel, task_id):
        status = await _until_ended(task_id, created.status, created.poll_interval_ms, poll)
        if not last:  # it ended before it was answered: its result comes with tasks/get
            status, _ = await poll()
    state = last[0] if last else None
    if status == "completed" and state is not None and state.result is not None:
        return mt.CallToolResult.model_validate(state.result, by_name=False)
    if status == "failed" and state is not None and state.error is not None:
        error = state.error
        code = error.get("code")
        raise MCPError(
            code=code if isinstance(code, int) else mt.INTERNAL_ERROR,
            message=str(error.get("message") or state.status_message or "the task failed"),
        )
    if status == "cancelled":
        raise TaskFailure(f"the server cancelled task {task_id}", "mcp_task_cancelled")
    raise TaskFailure(f"task {task_id} ended ({status}) without a result", "mcp_task_failed")


async def _answer_inputs(
    session: ClientSession,
    task_id: str,
    requests: dict[str, Any],
    answered: set[str],
    timeout: float | None,
) -> None:
    """Answer the task's input requests not answered yet (a key is never asked twice) with the
    client's callbacks, and send the answers with ``tasks/update``.

    Raises:
        MCPError: A callback declined (the call then fails, and its task is cancelled).
    """
    responses: dict[str, Any] = {}
    for key, raw in requests.items():
        if key in answered:
            continue
        answered.add(key)
        request = _INPUT_REQUEST.validate_python(raw, by_name=False)
        meta = request.params.meta if request.params is not None else None
        context = ClientRequestContext(session=session, request_id=key, meta=meta)
        answer = await session.dispatch_input_request(context, request)
        if isinstance(answer, mt.ErrorData):
            raise MCPError.from_error_data(answer)
        responses[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
    if responses:
        update = UpdateTaskRequest(
            params=UpdateTaskParams(taskId=task_id, inputResponses=responses)
        )
        await session.send_request(update, mt.EmptyResult, timeout)


async def _until_ended(
    task_id: str,
    status: str,
    interval_ms: float | None,
    poll: Callable[[], Awaitable[tuple[str, float | None]]],
) -> str:
    """Poll until the task is ``completed``, ``failed`` or ``cancelled``; that status. Each wait
    is the interval the server suggested last (`DEFAULT_POLL_S` when it named none)."""
    while status not in ("completed", "failed", "cancelled"):
        wait = DEFAULT_POLL_S if interval_ms is None else max(interval_ms / 1000, MIN_POLL_S)
        await anyio.sleep(wait)
        try:
            status, interval_ms = await poll()
        except MCPError as exc:
            if exc.code == mt.INVALID_PARAMS:  # the server no longer knows it
                raise TaskFailure(
                    f"task {task_id} is gone from the server ({exc.message})", "mcp_task_lost"
                ) from exc
            raise
    return status


@asynccontextmanager
async def _cancelling_on_abandon(
    cancel: Callable[[], Awaitable[None]], task_id: str
) -> AsyncIterator[None]:
    """When the block is left by cancellation (an abort, a timeout) or by an error while the
    task may still run (a declined input request, a refused poll), ask the server to cancel
    the task first (shielded, for at most `CANCEL_WAIT_S`), then let it go on. A task the
    server already ended or lost (`TaskFailure`) needs no cancelling."""
    try:
        yield
    except TaskFailure:
        raise
    except BaseException:
        with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_WAIT_S):
            try:
                await cancel()
            except Exception as exc:  # the server may be gone; the call is over either way
                logger.debug("tasks/cancel of %s failed: %r", task_id, exc)
        raise
