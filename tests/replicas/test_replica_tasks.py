"""MCP tasks on two replicas of one shared store, driven by the SDK's client over streamable HTTP.

- A task belongs to the principal that created it: with bearer tokens, every ``tasks/*`` method
  of another credential answers exactly as for an unknown task, on both protocol generations
  and on either replica (on 2026-07-28 each credential has its own stateless session, the
  same on every replica, and the task's owner is checked as well).
- What a task's result is presented with (its call's arguments, here the ``url`` behind the
  ``<untrusted source="...">`` label) is on the store: replica B presents a task of replica A
  exactly as A does.
- ``tasks/cancel`` asked on B of a task running on A is honoured through the store: A's tool is
  interrupted and the task ends ``cancelled``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as mt
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from stores import shared_store_url, unique
from two_replicas import Replica, two_replicas

from toolwire import ToolContext, define_tool, ok
from toolwire.mcp._task_extension import (
    CancelTaskRequest,
    CreateTaskResult,
    GetTaskRequest,
    GetTaskResult,
    TaskIdParams,
    UpdateTaskParams,
    UpdateTaskRequest,
)
from toolwire.mcp.client.tasks import TasksClientExtension
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.tokens import TokenStore
from toolwire.results import ToolResult

pytestmark = pytest.mark.anyio

WAIT_S = 20.0
URL = "https://pages.example.test/report?id=7"
UNKNOWN = "task-000000000000000000000000"
REVISIONS = ("legacy", "modern")


class Interrupted:
    """The task ids whose tool was interrupted (seen by the tool itself)."""

    def __init__(self) -> None:
        self.labels: list[str] = []


def _fetch_tool(interrupted: Interrupted) -> Any:
    async def fetch(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            await anyio.sleep(float(args.get("seconds", 0)))
        except anyio.get_cancelled_exc_class():
            interrupted.labels.append(str(args.get("label", "")))
            raise
        return ok(f"the page at {args['url']} says hello")

    return define_tool(
        name="fetch_page",
        description="Fetch a page slowly.",
        schema={
            "type": "object",
            "properties": {
                "url": {"type": "string"},
                "seconds": {"type": "number"},
                "label": {"type": "string"},
            },
            "required": ["url"],
        },
        execute=fetch,
        long_running=True,
        output_is_untrusted=True,
    )


@asynccontextmanager
async def _replicas(
    store_url: str, root: Path, *, tokens: bool = False
) -> AsyncIterator[tuple[Replica, Replica, Interrupted]]:
    interrupted = Interrupted()
    async with two_replicas(store_url, root, unique("tasks"), tokens=tokens) as (a, b):
        for replica in (a, b):
            replica.registry.register(_fetch_tool(interrupted))
            replica.registry.tasks.hand_off_s = 0.1
            replica.registry.tasks.poll_s = 0.1
        yield a, b, interrupted


@asynccontextmanager
async def _client(url: str, revision: str, bearer: str | None = None) -> AsyncIterator[Client]:
    headers = {"authorization": f"Bearer {bearer}"} if bearer else None
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(url, http_client=http)
        mode = "legacy" if revision == "legacy" else "auto"
        extensions = [TasksClientExtension()] if revision == "modern" else []
        async with Client(
            transport, mode=mode, read_timeout_seconds=WAIT_S, extensions=extensions
        ) as client:
            yield client


async def _create(client: Client, revision: str, arguments: dict[str, Any]) -> str:
    """A task of ``fetch_page`` (task-augmented on 2025-11-25, handed off on 2026-07-28)."""
    if revision == "legacy":
        params = {"name": "fetch_page", "arguments": arguments, "task": {}}
        raw = await client.session._dispatcher.send_raw_request("tools/call", params, {})
        return mt.CreateTaskResult.model_validate(raw).task.task_id
    created = await client.session.call_tool("fetch_page", arguments, allow_claimed=True)
    assert isinstance(created, CreateTaskResult), created
    return created.task_id


def _requests(revision: str, task_id: str) -> list[tuple[Any, type[Any]]]:
    """Every ``tasks/*`` request that names ``task_id`` on ``revision``."""
    if revision == "legacy":
        return [
            (mt.GetTaskRequest(params=mt.GetTaskRequestParams(task_id=task_id)), mt.GetTaskResult),
            (
                mt.GetTaskPayloadRequest(params=mt.GetTaskPayloadRequestParams(task_id=task_id)),
                mt.CallToolResult,
            ),
            (
                mt.CancelTaskRequest(params=mt.CancelTaskRequestParams(task_id=task_id)),
                mt.CancelTaskResult,
            ),
        ]
    named = TaskIdParams(taskId=task_id)
    return [
        (GetTaskRequest(params=named), GetTaskResult),
        (UpdateTaskRequest(params=UpdateTaskParams(taskId=task_id)), mt.EmptyResult),
        (CancelTaskRequest(params=named), mt.EmptyResult),
    ]


async def _refusals(client: Client, revision: str, task_id: str) -> list[tuple[int, str]]:
    """The error each ``tasks/*`` request about ``task_id`` is answered with, the id in its
    message replaced by ``<id>``."""
    refusals = []
    for request, result_type in _requests(revision, task_id):
        with pytest.raises(MCPError) as refused:
            await client.session.send_request(request, result_type)
        error = refused.value.error
        refusals.append((error.code, error.message.replace(task_id, "<id>")))
    return refusals


async def _listed(client: Client) -> list[str]:
    listing = await client.session.send_request(mt.ListTasksRequest(), mt.ListTasksResult)
    return [task.task_id for task in listing.tasks]


async def _final(client: Client, revision: str, task_id: str) -> tuple[str, str]:
    """The task's end: its status and its result's text."""
    if revision == "legacy":
        request = mt.GetTaskPayloadRequest(params=mt.GetTaskPayloadRequestParams(task_id=task_id))
        result = await client.session.send_request(request, mt.CallToolResult)
        state = await client.session.send_request(
            mt.GetTaskRequest(params=mt.GetTaskRequestParams(task_id=task_id)), mt.GetTaskResult
        )
        return state.status, _text(result)
    while True:
        ended = await client.session.send_request(
            GetTaskRequest(params=TaskIdParams(taskId=task_id)), GetTaskResult
        )
        if ended.done:
            shown = mt.CallToolResult.model_validate(ended.result) if ended.result else None
            return ended.status, _text(shown) if shown is not None else ""
        await anyio.sleep(0.05)


def _text(result: mt.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mt.TextContent))


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_task_answers_only_the_credential_that_created_it_on_every_replica(
    revision: str, tmp_path: Path
) -> None:
    url = shared_store_url("sqlite", tmp_path)
    async with _replicas(url, tmp_path, tokens=True) as (a, b, _):
        tokens = TokenStore(a.state.backend)
        alice = (await tokens.create("alice", Grant.of(toolsets=["*"]))).token
        bob = (await tokens.create("bob", Grant.of(toolsets=["*"]))).token
        with anyio.fail_after(WAIT_S * 2):
            async with _client(a.url, revision, alice) as owner:
                task_id = await _create(owner, revision, {"url": URL, "seconds": 0.5})
                for replica in (a, b):
                    async with _client(replica.url, revision, bob) as other:
                        unknown = await _refusals(other, revision, UNKNOWN)
                        assert await _refusals(other, revision, task_id) == unknown
                        if revision == "legacy":
                            assert task_id not in await _listed(other)
                async with _client(b.url, revision, alice) as owner_on_b:
                    if revision == "legacy":  # its own session on B: a session's tasks only
                        assert await _refusals(owner_on_b, revision, task_id) == unknown
                    else:  # the same principal on the stateless revision: found on B
                        status, text = await _final(owner_on_b, revision, task_id)
                        assert (status, "says hello" in text) == ("completed", True)
                status, text = await _final(owner, revision, task_id)
                if revision == "legacy":
                    assert task_id in await _listed(owner)
    assert {code for code, _ in unknown} == {mt.INVALID_PARAMS}
    assert all(message == "Task not found: <id>" for _, message in unknown)
    assert status == "completed"
    assert URL in text


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
async def test_another_replica_presents_a_2026_task_as_the_one_that_ran_it(
    kind: str, tmp_path: Path
) -> None:
    url = shared_store_url(kind, tmp_path)
    async with _replicas(url, tmp_path) as (a, b, _):
        with anyio.fail_after(WAIT_S * 2):
            async with _client(a.url, "modern") as on_a, _client(b.url, "modern") as on_b:
                task_id = await _create(on_a, "modern", {"url": URL, "seconds": 0.3})
                from_b = await _final(on_b, "modern", task_id)
                from_a = await _final(on_a, "modern", task_id)
    assert from_b == from_a
    assert from_a[0] == "completed"
    assert f'<untrusted source="{URL}" tool="fetch_page">' in from_a[1]


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
async def test_another_replica_presents_a_legacy_task_of_the_same_session_alike(
    kind: str, tmp_path: Path
) -> None:
    url = shared_store_url(kind, tmp_path)
    async with _replicas(url, tmp_path) as (a, b, _), httpx.AsyncClient(timeout=WAIT_S) as http:
        with anyio.fail_after(WAIT_S * 2):
            session = await _open_session(http, a.url)
            create = _message(
                "tools/call", {"name": "fetch_page", "arguments": {"url": URL, "seconds": 0.3}}
            )
            create["params"]["task"] = {}
            task_id = (await _rpc(http, a.url, session, create))["result"]["task"]["taskId"]
            payload = _message("tasks/result", {"taskId": task_id})
            from_b = (await _rpc(http, b.url, session, payload))["result"]  # waits for A
            from_a = (await _rpc(http, a.url, session, payload))["result"]
            state = _message("tasks/get", {"taskId": task_id})
            on_b = (await _rpc(http, b.url, session, state))["result"]
            on_a = (await _rpc(http, a.url, session, state))["result"]
    assert from_b == from_a
    assert f'<untrusted source="{URL}" tool="fetch_page">' in from_a["content"][0]["text"]
    assert from_a["_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": task_id}}
    assert on_b == on_a
    assert on_a["status"] == "completed"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_cancel_on_another_replica_stops_the_task_through_the_store(
    revision: str, tmp_path: Path
) -> None:
    url = shared_store_url("sqlite", tmp_path)
    async with _replicas(url, tmp_path) as (a, b, interrupted):
        with anyio.fail_after(WAIT_S * 2):
            if revision == "legacy":
                async with httpx.AsyncClient(timeout=WAIT_S) as http:
                    session = await _open_session(http, a.url)
                    create = _message(
                        "tools/call",
                        {
                            "name": "fetch_page",
                            "arguments": {"url": URL, "seconds": 60, "label": "L"},
                        },
                    )
                    create["params"]["task"] = {}
                    task_id = (await _rpc(http, a.url, session, create))["result"]["task"]["taskId"]
                    assert task_id in a.registry.tasks.running
                    cancel = _message("tasks/cancel", {"taskId": task_id})
                    answered = (await _rpc(http, b.url, session, cancel))["result"]
                    state = _message("tasks/get", {"taskId": task_id})
                    while (ended := (await _rpc(http, a.url, session, state))["result"])[
                        "status"
                    ] == "working":
                        await anyio.sleep(0.05)
                    again = await _rpc(http, b.url, session, cancel)
            else:
                async with _client(a.url, revision) as on_a, _client(b.url, revision) as on_b:
                    arguments = {"url": URL, "seconds": 60, "label": "M"}
                    task_id = await _create(on_a, revision, arguments)
                    assert task_id in a.registry.tasks.running
                    stop = CancelTaskRequest(params=TaskIdParams(taskId=task_id))
                    answered = (await on_b.session.send_request(stop, mt.EmptyResult)).model_dump()
                    status, _ = await _final(on_a, revision, task_id)
                    ended = {"status": status}
    assert task_id not in a.registry.tasks.running
    assert ended["status"] == "cancelled"
    assert interrupted.labels == (["L"] if revision == "legacy" else ["M"])
    if revision == "legacy":  # the state after the request: cancelled, or still stopping
        assert answered["taskId"] == task_id
        assert answered["status"] in ("working", "cancelled")
        assert again["error"]["code"] == mt.INVALID_PARAMS  # it ended: nothing to cancel
        assert "already ended (cancelled)" in again["error"]["message"]
    else:
        assert answered.get("result_type") == "complete"  # acknowledged


# -- raw streamable HTTP on 2025-11-25, for one session served by both replicas --------------

_LEGACY = "2025-11-25"
_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _message(method: str, params: dict[str, Any], request_id: int = 5) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


async def _open_session(http: httpx.AsyncClient, url: str) -> str:
    hello = _message(
        "initialize",
        {
            "protocolVersion": _LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "task-replicas", "version": "1"},
        },
        request_id=1,
    )
    answer = await http.post(url, json=hello, headers=_HEADERS)
    assert answer.status_code == 200, answer.text
    session = answer.headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    headers = _HEADERS | {"mcp-session-id": session, "mcp-protocol-version": _LEGACY}
    assert (await http.post(url, json=done, headers=headers)).status_code == 202
    return session


async def _rpc(
    http: httpx.AsyncClient, url: str, session: str, message: dict[str, Any]
) -> dict[str, Any]:
    """One request in ``session`` on the replica at ``url``; its JSON-RPC answer."""
    headers = _HEADERS | {"mcp-session-id": session, "mcp-protocol-version": _LEGACY}
    answer = await http.post(url, json=message, headers=headers)
    assert answer.status_code == 200, answer.text
    if answer.headers.get("content-type", "").startswith("application/json"):
        found: dict[str, Any] = answer.json()
        return found
    for line in answer.text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            sent = json.loads(line[5:])
            if sent.get("id") == message["id"]:
                return dict(sent)
    raise AssertionError(f"no answer to {message['method']}: {answer.text!r}")
