"""The SDK's real MCP client against a cluster, with a router that can send each request to a
chosen replica, and a record of which replica served what.

`connected(cluster, mode)` opens ``mcp.client.client.Client`` over
``mcp.client.streamable_http`` on the proxy's URL, in ``mode`` ``"auto"`` (the stateless
2026-07-28 revision) or ``"legacy"`` (the ``initialize`` handshake and its session). Its HTTP
client carries two event hooks: one rewrites a request's port to the replica
`Route.replica` names (``None``: through HAProxy, round-robin), so a test reads a file through
one replica and writes it through another within one MCP session; the other records the
``x-toolwire-replica`` header HAProxy adds, so a test can see that the proxy spread its
requests.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from replica_cluster import REPLICA_HEADER, Cluster

__all__ = [
    "CALL_TIMEOUT_S",
    "MODES",
    "Connected",
    "change_file",
    "connected",
    "create_task",
    "quota_attempts",
    "quota_refusals",
    "task_status",
    "text_of",
]

CALL_TIMEOUT_S = 30.0
"""How long one request may take before the test fails (a replica killed mid-call included)."""
MODES = ("auto", "legacy")
"""The stateless 2026-07-28 revision, and the handshake era (2025-11-25, with a session)."""


@dataclass
class Connected:
    """An SDK client on the cluster, and where its requests went."""

    client: Client
    cluster: Cluster
    route: str | None = None
    """The replica the next requests go to; ``None``: through HAProxy."""
    served_by: list[str] = field(default_factory=list)
    """The replica HAProxy named on each answer it forwarded, in order."""

    def via(self, replica: str | None) -> Connected:
        """Send the following requests to ``replica`` (``None``: through the proxy)."""
        self.route = replica
        return self

    async def call(self, name: str, arguments: dict[str, Any]) -> mt.CallToolResult:
        """``tools/call``, bounded by `CALL_TIMEOUT_S`."""
        with anyio.fail_after(CALL_TIMEOUT_S):
            return await self.client.call_tool(name, arguments)

    async def ok(self, name: str, arguments: dict[str, Any]) -> str:
        """The text of a call that must succeed."""
        result = await self.call(name, arguments)
        assert not result.is_error, f"{name} failed: {text_of(result)}"
        return text_of(result)


async def create_task(conn: Connected, name: str, arguments: dict[str, Any]) -> str:
    """A task-augmented ``tools/call`` (2025-11-25, a legacy session); the task's id. (SDK
    2.3's client checks every ``tools/call`` answer against ``CallToolResult``, so this one
    request goes through its dispatcher.)"""
    params = {"name": name, "arguments": arguments, "task": {"ttl": 60_000}}
    with anyio.fail_after(CALL_TIMEOUT_S):
        raw = await conn.client.session._dispatcher.send_raw_request("tools/call", params, {})
    return mt.CreateTaskResult.model_validate(raw).task.task_id


async def task_status(conn: Connected, task_id: str) -> str:
    """``tasks/get``: the task's status."""
    request = mt.GetTaskRequest(params=mt.GetTaskRequestParams(task_id=task_id))
    with anyio.fail_after(CALL_TIMEOUT_S):
        return (await conn.client.session.send_request(request, mt.GetTaskResult)).status


def change_file(path: Path, text: str) -> None:
    """Someone else rewrites ``path``: new text and, always, a new modification time (file
    times tick coarsely; two writes within one tick would look unchanged to STALE_WRITE)."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    after = path.stat()
    if after.st_mtime_ns == before:
        os.utime(path, ns=(after.st_atime_ns, before + 1_000_000))


def text_of(result: mt.CallToolResult) -> str:
    """The text blocks of a result, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, mt.TextContent))


@asynccontextmanager
async def connected(cluster: Cluster, mode: str) -> AsyncIterator[Connected]:
    """An SDK client on ``cluster``'s proxy URL in ``mode`` (see the module docstring)."""
    http = create_mcp_http_client()
    holder: list[Connected] = []

    async def route(request: Any) -> None:
        target = holder[0].route if holder else None
        if target is not None:
            request.url = request.url.copy_with(port=cluster.replica(target).port)

    async def record(response: Any) -> None:
        if holder and (served := response.headers.get(REPLICA_HEADER)):
            holder[0].served_by.append(served)

    http.event_hooks["request"].append(route)
    http.event_hooks["response"].append(record)
    async with http:
        transport = streamable_http_client(cluster.url, http_client=http)
        # read_timeout_seconds bounds the handshake and every request the SDK waits for
        async with Client(
            transport, mode=mode, read_timeout_seconds=CALL_TIMEOUT_S, cache=None
        ) as client:
            holder.append(Connected(client=client, cluster=cluster))
            yield holder[0]


QUOTA_ATTEMPTS = 30
"""Calls fired at a quota of 12, from six sessions at once."""


async def quota_attempts(cluster: Cluster, tool: str, arguments: dict[str, Any]) -> list[str]:
    """`QUOTA_ATTEMPTS` calls of ``tool`` from six stateless sessions at once, through the
    proxy (so spread over every live replica); each answer's text."""
    answers: list[str] = []

    async def one(conn: Connected) -> None:
        answers.append(text_of(await conn.call(tool, arguments)))

    async def session(count: int) -> None:
        async with connected(cluster, "auto") as conn, anyio.create_task_group() as group:
            for _ in range(count):
                group.start_soon(one, conn)

    async with anyio.create_task_group() as group:
        for _ in range(6):
            group.start_soon(session, QUOTA_ATTEMPTS // 6)
    return answers


def quota_refusals(answers: list[str]) -> int:
    """How many answers are quota refusals (``Tool x was not run: quota ...``)."""
    return sum("was not run: quota" in answer for answer in answers)
