"""Two ``serve_http`` replicas in the test's event loop, on one shared store, and raw MCP over
HTTP against either (the same client, talking to whichever replica a balancer would pick)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx

from toolwire import ToolContext, define_tool, ok
from toolwire.config import ToolwireConfig
from toolwire.mcp import ServeOptions, serve_http
from toolwire.mcp.server.auth.server_auth import ServerAuth, server_auth_for
from toolwire.mcp.server.auth.settings import AuthSettings
from toolwire.mcp.server.peer import current_peer
from toolwire.registry import ToolRegistry
from toolwire.replicas import ReplicaSettings, ReplicaState
from toolwire.results import ToolResult
from toolwire.wiring import create_registry

__all__ = ["PROTOCOL", "Replica", "call", "initialize", "rpc", "two_replicas"]

PROTOCOL = "2025-06-18"
WAIT_S = 20.0
_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@dataclass
class Replica:
    """One running replica: its endpoint, its state and its registry."""

    url: str
    state: ReplicaState
    registry: ToolRegistry
    auth: ServerAuth | None = None


async def _shout(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Log one message at each of two levels through the client, then answer."""
    peer = current_peer()
    assert peer is not None
    await peer.log("info", "an info line")
    await peer.log("error", "an error line")
    client = peer.context.session.client_params
    name = client.client_info.name if client is not None else "?"
    return ok(f"shouted for {name}")


def _registry(store_url: str, root: Path) -> ToolRegistry:
    config = ToolwireConfig(
        base_dir=str(root), store_url=store_url, toolsets=("file",), sandbox_write=(str(root),)
    )
    registry = create_registry(config)
    registry.register(
        define_tool(
            name="shout", description="Log twice.", schema={"type": "object"}, execute=_shout
        )
    )
    return registry


@asynccontextmanager
async def two_replicas(
    store_url: str, root: Path, cluster: str, *, tokens: bool = False, **options: Any
) -> AsyncIterator[list[Replica]]:
    """Replicas ``a`` and ``b`` on ``store_url``, both serving files under ``root``
    (``tokens``: bearer tokens from the shared store required; ``options``: more
    `ServeOptions`)."""
    async with AsyncExitStack() as stack:
        replicas: list[Replica] = []
        for name in ("a", "b"):
            registry = _registry(store_url, root)
            stack.push_async_callback(registry.aclose)
            backend = registry.backends.kv_backend if registry.backends else None
            assert backend is not None
            settings = ReplicaSettings(
                enabled=True, replica_id=f"{cluster}-{name}", cluster=cluster
            )
            state = await stack.enter_async_context(ReplicaState(backend, settings).running())
            auth = await stack.enter_async_context(
                server_auth_for(AuthSettings(tokens=tokens, token_cache_s=0), backend)
            )
            replicas.append(Replica(url="", state=state, registry=registry, auth=auth))
        async with anyio.create_task_group() as group:
            for replica in replicas:
                served = ServeOptions(
                    working_dir=str(root), replicas=replica.state, auth=replica.auth, **options
                )
                replica.url = await _start(group, replica.registry, served)
            try:
                yield replicas
            finally:
                group.cancel_scope.cancel()


async def _start(group: anyio.abc.TaskGroup, registry: ToolRegistry, options: ServeOptions) -> str:
    ready = anyio.Event()
    urls: list[str] = []

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    async def serve() -> None:
        await serve_http(registry, options, port=0, on_ready=on_ready)

    group.start_soon(serve)
    with anyio.fail_after(WAIT_S):
        await ready.wait()
    return urls[0]


def _messages(answer: httpx.Response) -> list[dict[str, Any]]:
    if answer.headers.get("content-type", "").startswith("application/json"):
        return [answer.json()] if answer.content else []
    return [
        json.loads(line[5:])
        for line in answer.text.splitlines()
        if line.startswith("data:") and line[5:].strip()
    ]


async def rpc(
    http: httpx.AsyncClient,
    url: str,
    session_id: str | None,
    message: dict[str, Any],
    *,
    method: str = "POST",
    bearer: str | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """Send one JSON-RPC message in the session; the HTTP status and the messages answered."""
    headers = dict(_HEADERS)
    if bearer is not None:
        headers["authorization"] = f"Bearer {bearer}"
    if session_id is not None:
        headers |= {"mcp-session-id": session_id, "mcp-protocol-version": PROTOCOL}
    if method == "DELETE":
        answer = await http.delete(url, headers=headers)
    else:
        answer = await http.post(url, json=message, headers=headers)
    return answer.status_code, _messages(answer) if answer.status_code < 400 else []


async def initialize(
    http: httpx.AsyncClient, url: str, client: str = "replica-test", bearer: str | None = None
) -> str:
    """Open a session (``initialize`` + ``notifications/initialized``); its id."""
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": client, "version": "1"},
        },
    }
    headers = dict(_HEADERS) | ({"authorization": f"Bearer {bearer}"} if bearer else {})
    answer = await http.post(url, json=hello, headers=headers)
    assert answer.status_code == 200, answer.text
    session_id = answer.headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    status, _ = await rpc(http, url, session_id, done, bearer=bearer)
    assert status == 202
    return session_id


async def call(
    http: httpx.AsyncClient,
    url: str,
    session_id: str | None,
    name: str,
    arguments: dict[str, Any],
    request_id: int = 7,
) -> tuple[int, list[dict[str, Any]]]:
    """``tools/call`` in the session."""
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return await rpc(http, url, session_id, message)
