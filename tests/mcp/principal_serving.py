"""Two credentials (alice, bob) against one authenticated `serve_http` on 127.0.0.1, with the
built-in process, todo, memory and result-handle tools, and raw JSON-RPC over httpx on both
protocol generations (the principal tests)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp_helpers import WAIT_S

from toolwire import ToolContext, ToolRegistry, define_tool, ok
from toolwire.capabilities.kinds.process._backends import LocalProcessBackend
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.execution.handles import ResultHandles
from toolwire.mcp import ServeOptions, serve_http
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.server_auth import open_server_auth
from toolwire.mcp.server.auth.settings import AuthSettings
from toolwire.mcp.server.auth.tokens import TokenStore
from toolwire.results import ToolResult
from toolwire.stores import create_kv_backend
from toolwire.toolbox import memory_tools, process_tools, todo_tools
from toolwire.toolbox._kept_results import read_result

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
CAPS = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
BUDGET = 2000
BIG_TEXT = "".join(f"alice's line {i:05d}\n" for i in range(1000))


async def _big(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(BIG_TEXT)


def principal_registry(backends: CapabilityBackends) -> ToolRegistry:
    """Background processes, todo, memory, ``read_result`` and ``big`` (a result over the
    budget, kept behind a handle)."""
    registry = ToolRegistry(backends=backends, result_handles=ResultHandles())
    big = define_tool(
        name="big", description="A big result.", schema={"type": "object"}, execute=_big
    )
    registry.register_all([*process_tools(), *todo_tools(), *memory_tools(), read_result, big])
    return registry


@dataclass
class Client:
    """One credential's raw JSON-RPC client."""

    http: httpx.AsyncClient
    url: str
    token: str

    def _headers(self, **extra: str) -> dict[str, str]:
        return {**ACCEPT, "authorization": f"Bearer {self.token}", **extra}

    async def modern(
        self, method: str, params: dict[str, Any] | None = None, **extra: str
    ) -> dict[str, Any]:
        """One 2026-07-28 request (no session; ``extra`` headers); the JSON-RPC answer."""
        body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**(params or {})}}
        body["params"]["_meta"] = CAPS
        headers = self._headers(**{"mcp-protocol-version": MODERN, "mcp-method": method}, **extra)
        named = (params or {}).get("name", (params or {}).get("uri"))
        if named is not None:
            headers["mcp-name"] = named
        return await self._post(body, headers)

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        """A 2026-07-28 ``tools/call``; its result."""
        answer = await self.modern("tools/call", {"name": name, "arguments": arguments})
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    async def call_in_session(self, session: str, name: str, **arguments: Any) -> dict[str, Any]:
        """A handshake-era ``tools/call`` in ``session``; its result."""
        body = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        answer = await self._post(body, self.in_session(session))
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    async def open_session(self) -> str:
        """A handshake-era session (``initialize``, then ``notifications/initialized``)."""
        hello = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "principal-test", "version": "1"},
            },
        }
        answer = await self.http.post(self.url, json=hello, headers=self._headers())
        assert answer.status_code == 200, answer.text
        session = answer.headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        sent = await self.http.post(self.url, json=done, headers=self.in_session(session))
        assert sent.status_code == 202, sent.text
        return session

    def in_session(self, session: str) -> dict[str, str]:
        return self._headers(**{"mcp-session-id": session, "mcp-protocol-version": LEGACY})

    async def session_status(self, session: str) -> int:
        """The HTTP status of a ``tools/list`` in ``session`` (404: it was closed)."""
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        answer = await self.http.post(self.url, json=listing, headers=self.in_session(session))
        return answer.status_code

    async def _post(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        answer = await self.http.post(self.url, json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        return decode(answer)


def decode(answer: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a JSON or SSE answer."""
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        for line in answer.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                message: dict[str, Any] = json.loads(line[5:])
                if "id" in message:
                    return message
        raise AssertionError(f"no answer in the stream: {answer.text!r}")
    decoded: dict[str, Any] = answer.json()
    return decoded


def text_of(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])


@dataclass
class TwoClients:
    alice: Client
    bob: Client
    url: str


@asynccontextmanager
async def two_principals(
    tmp_path: Path, *, max_per_owner: int = 8, **options: Any
) -> AsyncIterator[TwoClients]:
    """The registry served with bearer tokens; alice's and bob's clients."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    async with create_kv_backend("memory://") as kv:
        tokens = TokenStore(kv)
        alice = await tokens.create("alice", Grant.of(toolsets=["*"]))
        bob = await tokens.create("bob", Grant.of(toolsets=["*"]))
        auth = open_server_auth(AuthSettings(tokens=True, token_cache_s=0), kv)
        manager = ProcessManager(
            str(tmp_path / "procs"), stop_grace_s=1.0, max_per_owner=max_per_owner
        )
        backends = CapabilityBackends(
            kv_store_factory=kv.scoped,
            fs_read=(str(work),),
            fs_write=(str(work),),
            processes=LocalProcessBackend(manager),
        )
        serve = ServeOptions(
            auth=auth, working_dir=str(work), result_budget_chars=BUDGET, **options
        )
        try:
            async with (
                backends,
                served(principal_registry(backends), serve) as url,
                httpx.AsyncClient(timeout=WAIT_S) as http,
            ):
                yield TwoClients(
                    alice=Client(http, url, alice.token), bob=Client(http, url, bob.token), url=url
                )
        finally:
            await auth.aclose()


@asynccontextmanager
async def served(registry: ToolRegistry, options: ServeOptions) -> AsyncIterator[str]:
    """``registry`` at ``http://127.0.0.1:<free port>/mcp`` until the block ends."""
    urls: list[str] = []
    ready = anyio.Event()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    async with anyio.create_task_group() as group:
        group.start_soon(lambda: serve_http(registry, options, port=0, on_ready=on_ready))
        with anyio.fail_after(WAIT_S):
            await ready.wait()
        yield urls[0]
        group.cancel_scope.cancel()
