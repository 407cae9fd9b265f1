"""An MCP server written on the SDK's low-level ``Server`` (not toolwire's) that runs tools as
tasks, for the client tests (``python sdk_tasks_server.py``, stdio).

On 2025-11-25 it declares ``capabilities.tasks`` and lists its tools with
``execution.taskSupport: "required"``: a ``tools/call`` without a ``task`` field is refused
(``-32601``, as such servers do), one with it answers a ``CreateTaskResult``; ``tasks/get``,
``tasks/result``, ``tasks/cancel`` follow. On 2026-07-28 it declares the
``io.modelcontextprotocol/tasks`` extension and answers a declaring client's calls of the same
tools with a task (``resultType: "task"``), followed with ``tasks/get`` and ``tasks/cancel``.

Tools: ``crunch`` (sleeps ``seconds``, answers ``crunched <n>``), ``flop`` (answers
``isError``), ``stuck`` (sleeps an hour; a cancelled task writes ``$TOOLWIRE_TEST_MARKERS/<tag>``),
``vanish`` (the task is forgotten at once: ``tasks/get`` answers ``-32602``), ``breaks`` (the
task fails with a JSON-RPC error; on 2025-11-25 ``tasks/result`` answers that error), ``asks``
(2026-07-28: the task needs input, an elicitation in ``inputRequests``, and answers
``hello <name>`` once ``tasks/update`` brings it; a declined or absent answer never comes, and a
cancelled task writes its marker), ``reports`` (works in two steps, each announced in the task's
``statusMessage`` and, on 2025-11-25 when the call carried a ``progressToken``, with a
``notifications/progress`` for that token), ``plain`` (an ordinary tool, no task). Each
``tasks/get`` is timed: ``$TOOLWIRE_TEST_MARKERS/polls-<tag>`` gets the seconds between a task's
polls, one per line. ``pollInterval`` is ``POLL_MS``.
"""

from __future__ import annotations

import datetime
import os
import secrets
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import mcp_types as mt
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

MARKERS = Path(os.environ.get("TOOLWIRE_TEST_MARKERS", "."))
EXTENSION = "io.modelcontextprotocol/tasks"
POLL_MS = 150
TTL_MS = 60_000
TASK_TOOLS = ("crunch", "flop", "stuck", "vanish", "breaks", "asks", "reports")
ASK = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    },
}
SECONDS = {
    "type": "object",
    "properties": {"seconds": {"type": "number"}, "tag": {"type": "string"}},
}


@dataclass
class Job:
    """A task of this server."""

    tool: str
    tag: str
    status: str = "working"
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    done: anyio.Event = field(default_factory=anyio.Event)
    polled: list[float] = field(default_factory=list)
    asked: dict[str, Any] | None = None
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: dict[str, Any] = field(default_factory=dict)
    status_message: str | None = None
    progress: Any = None  # (session, token): where a 2025-11-25 task's progress goes


JOBS: dict[str, Job] = {}


class TaskIdParams(mt.RequestParams):
    task_id: str = Field(alias="taskId")


def _iso(stamp: float) -> str:
    moment = datetime.datetime.fromtimestamp(stamp, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _text(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


async def _run(job: Job, arguments: dict[str, Any]) -> None:
    seconds = float(arguments.get("seconds", 0.3))
    with job.scope:
        try:
            if job.tool == "stuck":
                await anyio.sleep(3600)
            await anyio.sleep(seconds)
            if job.tool == "asks":
                job.status, job.asked = "input_required", {"name-1": ASK}
                await job.answered.wait()
                job.status, job.asked = "working", None
                job.result = _text(f"hello {job.answer.get('content', {}).get('name')}")
            if job.tool == "reports":
                for step in (1, 2):
                    job.status_message = f"step {step} of 2"
                    if job.progress is not None:
                        session, token = job.progress
                        await session.send_progress_notification(
                            token, step, 2, f"crunching {step}/2"
                        )
                    await anyio.sleep(0.5)
                job.result = _text("reported")
            if job.tool == "crunch":
                job.result = _text(f"crunched {arguments.get('n', 0)}")
            elif job.tool == "flop":
                job.result = _text("the numbers did not add up", error=True)
            elif job.tool == "breaks":
                job.error = {"code": mt.INTERNAL_ERROR, "message": "the backend fell over"}
            job.status = "failed" if job.error else "completed"
        finally:
            job.updated = time.time()
    if job.scope.cancelled_caught:
        job.status = "cancelled"
        (MARKERS / job.tag).write_text("cancelled")
    job.done.set()


def _legacy(job_id: str, job: Job) -> dict[str, Any]:
    return {
        "taskId": job_id,
        "status": job.status,
        "createdAt": _iso(job.created),
        "lastUpdatedAt": _iso(job.updated),
        "ttl": TTL_MS,
        "pollInterval": POLL_MS,
    } | ({"statusMessage": job.status_message} if job.status_message else {})


def _modern(job_id: str, job: Job) -> dict[str, Any]:
    wire = {
        "taskId": job_id,
        "status": job.status,
        "createdAt": _iso(job.created),
        "lastUpdatedAt": _iso(job.updated),
        "ttlMs": TTL_MS,
        "pollIntervalMs": POLL_MS,
    }
    if job.status_message:
        wire["statusMessage"] = job.status_message
    if job.status == "input_required":
        wire["inputRequests"] = job.asked
    elif job.status == "completed":
        wire["result"] = job.result
    elif job.status == "failed":
        wire["error"] = job.error
    return wire


def _find(task_id: str) -> tuple[str, Job]:
    job = JOBS.get(task_id)
    if job is None:
        raise MCPError(code=mt.INVALID_PARAMS, message=f"Task not found: {task_id}")
    return task_id, job


@asynccontextmanager
async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
    async with anyio.create_task_group() as group:
        yield {"group": group}
        group.cancel_scope.cancel()


def _start(
    ctx: ServerRequestContext[Any, Any], name: str, arguments: dict[str, Any]
) -> tuple[str, Job]:
    job_id = f"job-{secrets.token_hex(8)}"
    job = Job(tool=name, tag=str(arguments.get("tag", name)))
    if name != "vanish":
        JOBS[job_id] = job
    token = (ctx.params or {}).get("_meta", {}).get("progressToken")
    if token is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        job.progress = (ctx.session, token)
    group: anyio.abc.TaskGroup = ctx.lifespan_context["group"]
    group.start_soon(_run, job, arguments)
    return job_id, job


def _declares(ctx: ServerRequestContext[Any, Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    return bool(capabilities and capabilities.extensions and EXTENSION in capabilities.extensions)


async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    params = dict(ctx.params or {})
    modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
    if ctx.method == "tools/call" and params.get("name") in TASK_TOOLS:
        arguments = params.get("arguments") or {}
        if modern and _declares(ctx):
            return {"resultType": "task", **_modern(*_start(ctx, params["name"], arguments))}
        if not modern and isinstance(params.get("task"), dict):
            return {"task": _legacy(*_start(ctx, params["name"], arguments))}
        raise MCPError(code=mt.METHOD_NOT_FOUND, message=f"{params['name']} requires a task")
    result = await call_next(ctx)
    if isinstance(result, dict) and ctx.method == "initialize":
        result.setdefault("capabilities", {})["tasks"] = {
            "list": {},
            "cancel": {},
            "requests": {"tools": {"call": {}}},
        }
    elif isinstance(result, dict) and ctx.method == "server/discover":
        result.setdefault("capabilities", {}).setdefault("extensions", {})[EXTENSION] = {}
    return result


async def list_tools(
    ctx: ServerRequestContext[Any, Any], params: mt.PaginatedRequestParams | None
) -> mt.ListToolsResult:
    execution = mt.ToolExecution(task_support="required")
    tools = [
        mt.Tool(
            name=name, description=f"{name} (as a task)", input_schema=SECONDS, execution=execution
        )
        for name in TASK_TOOLS
    ]
    tools.append(mt.Tool(name="plain", description="An ordinary tool.", input_schema=SECONDS))
    return mt.ListToolsResult(tools=tools)


async def call_tool(
    ctx: ServerRequestContext[Any, Any], params: mt.CallToolRequestParams
) -> mt.CallToolResult:
    return mt.CallToolResult(content=[mt.TextContent(type="text", text="plain answer")])


async def get_task(ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
    job_id, job = _find(params.task_id)
    now = time.monotonic()
    if job.polled:
        with (MARKERS / f"polls-{job.tag}").open("a") as gaps:
            gaps.write(f"{now - job.polled[-1]:.4f}\n")
    job.polled.append(now)
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return _modern(job_id, job)
    return _legacy(job_id, job)


async def task_result(ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
    job_id, job = _find(params.task_id)
    await job.done.wait()
    if job.error is not None:
        raise MCPError(code=job.error["code"], message=job.error["message"])
    assert job.result is not None
    return {**job.result, "_meta": {"io.modelcontextprotocol/related-task": {"taskId": job_id}}}


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


async def update_task(ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> dict[str, Any]:
    _, job = _find(params.task_id)
    if "name-1" in params.input_responses and job.asked is not None:
        job.answer = params.input_responses["name-1"]
        job.answered.set()
    return {}


async def cancel_task(ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
    job_id, job = _find(params.task_id)
    job.scope.cancel()
    await job.done.wait()
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return {}
    return _legacy(job_id, job)


def build() -> Server[Any]:
    server: Server[Any] = Server(
        "sdk-tasks", version="1", lifespan=lifespan, on_list_tools=list_tools
    )
    server.add_request_handler("tools/call", mt.CallToolRequestParams, call_tool)
    server.add_request_handler("tasks/get", TaskIdParams, get_task)
    server.add_request_handler("tasks/result", TaskIdParams, task_result)
    server.add_request_handler("tasks/cancel", TaskIdParams, cancel_task)
    server.add_request_handler("tasks/update", UpdateParams, update_task)
    server.middleware.append(middleware)
    return server


async def main() -> None:
    server = build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] != "stdio":
        raise SystemExit("usage: sdk_tasks_server.py [stdio]")
    anyio.run(main)
