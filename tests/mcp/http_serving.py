"""`serve_http` in the test's event loop on 127.0.0.1, and raw HTTP sessions against it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
from mcp_helpers import WAIT_S

from toolwire import ToolContext, ToolRegistry, define_tool, ok
from toolwire.mcp import ServeOptions, serve_http
from toolwire.results import ToolResult

PROTOCOL = "2025-06-18"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
HOLD_CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "hold"}}


@dataclass
class Gate:
    """The ``hold`` tool: it runs until the test opens the gate or the call is aborted; the
    abort signal's reason is recorded when it leaves."""

    entered: anyio.Event = field(default_factory=anyio.Event)
    opened: anyio.Event = field(default_factory=anyio.Event)
    left: anyio.Event = field(default_factory=anyio.Event)
    reasons: list[str | None] = field(default_factory=list)

    async def hold(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.entered.set()
        try:
            await self.opened.wait()
        finally:
            self.reasons.append(ctx.abort_signal.reason)
            self.left.set()
        return ok("released")


@dataclass
class Serving:
    """A running `serve_http`: its URL, and a scope that stops it when cancelled."""

    url: str
    scope: anyio.CancelScope
    finished: anyio.Event


@asynccontextmanager
async def serving(options: ServeOptions, gate: Gate | None = None) -> AsyncIterator[Serving]:
    """`serve_http` on a free port of 127.0.0.1 with the ``hold`` tool; stopped on exit."""
    registry = ToolRegistry()
    hold = define_tool(
        name="hold",
        description="Wait for the test.",
        schema={"type": "object"},
        execute=(gate or Gate()).hold,
    )
    registry.register(hold)
    urls: list[str] = []
    ready = anyio.Event()
    finished = anyio.Event()
    scope = anyio.CancelScope()

    async def serve() -> None:
        try:
            with scope:
                await serve_http(registry, options, port=0, on_ready=on_ready)
        finally:
            finished.set()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        with anyio.fail_after(WAIT_S):
            await ready.wait()
        yield Serving(url=urls[0], scope=scope, finished=finished)
        group.cancel_scope.cancel()


async def open_session(http: httpx.AsyncClient, url: str, protocol: str = PROTOCOL) -> str:
    """Initialize a session on ``protocol`` over raw HTTP (no GET stream, never closed); its
    id."""
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": protocol,
            "capabilities": {},
            "clientInfo": {"name": "http-test", "version": "1"},
        },
    }
    answer = await http.post(url, json=hello, headers=HEADERS)
    assert answer.status_code == 200, answer.text
    session_id = answer.headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    headers = session_headers(session_id, protocol)
    assert (await http.post(url, json=done, headers=headers)).status_code == 202
    return session_id


def session_headers(session_id: str, protocol: str = PROTOCOL) -> dict[str, str]:
    """The headers of a request in the session, labelled with ``protocol``."""
    return {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": protocol}


async def status_of(http: httpx.AsyncClient, url: str, session_id: str) -> int:
    """The HTTP status of a ``tools/list`` request in the session."""
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    return (await http.post(url, json=listing, headers=session_headers(session_id))).status_code
