"""Tool search over MCP: a client sees ``tool_search`` and the undeferred tools, what it finds
is listed and callable in its own session only (for its own principal), a handshake-era
client is told its list changed, and a bridged server's tools can be deferred.

Real servers: `serve_http` in the test's loop (with and without the fast path,
``TOOLWIRE_MCP_LEAN``), ``servers/search_server.py`` over stdio, and the same script bridged
in with ``[mcp.servers.x] defer_loading = true``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import mcp_types as mt
import pytest
from mcp.client import Client as SdkClient
from mcp_helpers import SERVERS, WAIT_S, stdio_config
from principal_serving import ACCEPT, CAPS, LEGACY, MODERN, Client, decode, served, text_of

from toolwire import ToolContext, ToolRegistry, define_tool
from toolwire.config import load_config
from toolwire.mcp import McpProvider, ServeOptions, bridge_into
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.server_auth import open_server_auth
from toolwire.mcp.server.auth.settings import AuthSettings
from toolwire.mcp.server.auth.tokens import TokenStore
from toolwire.mcp.server.fast_http import LEAN_ENV
from toolwire.providers import ProviderContext
from toolwire.results import ToolResult
from toolwire.stores import create_kv_backend
from toolwire.tool_search import DeferralRules, ToolSearch
from toolwire.toolbox import memory_tools, todo_tools

pytestmark = pytest.mark.anyio

SEARCH_SERVER = SERVERS / "search_server.py"
SEARCH = {"name": "tool_search", "arguments": {"query": "open a ticket"}}
CREATE = {"name": "create_issue", "arguments": {"title": "Crash on login"}}
OFFERED = {"read_notes", "tool_search"}


def _registry() -> ToolRegistry:
    sys.path.insert(0, str(SERVERS))
    try:
        from search_server import build_registry
    finally:
        sys.path.remove(str(SERVERS))
    return build_registry()


@pytest.fixture(params=[True, False], ids=["lean", "sdk"])
def lean(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Both HTTP paths: the fast path on, and off (``TOOLWIRE_MCP_LEAN=0``)."""
    monkeypatch.setenv(LEAN_ENV, "1" if request.param else "0")
    return bool(request.param)


def _messages(answer: httpx.Response) -> list[dict[str, Any]]:
    """Every JSON-RPC message of a JSON or SSE answer."""
    assert answer.status_code == 200, answer.text
    if not answer.headers.get("content-type", "").startswith("text/event-stream"):
        return [answer.json()]
    data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
    return [json.loads(d) for d in data if d.strip()]


class Raw:
    """Unauthenticated raw JSON-RPC against one server."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http, self.url = http, url

    async def session(self) -> dict[str, str]:
        hello = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        answer = await self.http.post(self.url, json=hello, headers=ACCEPT)
        headers = {
            **ACCEPT,
            "mcp-session-id": answer.headers["mcp-session-id"],
            "mcp-protocol-version": LEGACY,
        }
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await self.http.post(self.url, json=done, headers=headers)).status_code == 202
        return headers

    async def legacy(
        self, headers: dict[str, str], method: str, params: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        body = {"jsonrpc": "2.0", "id": 5, "method": method, "params": params or {}}
        return _messages(await self.http.post(self.url, json=body, headers=headers))

    async def modern(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**(params or {})}}
        body["params"]["_meta"] = CAPS
        headers = {**ACCEPT, "mcp-protocol-version": MODERN, "mcp-method": method}
        if params and "name" in params:
            headers["mcp-name"] = params["name"]
        return decode(await self.http.post(self.url, json=body, headers=headers))


def _answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = [m for m in messages if "id" in m][-1]["result"]
    return result


def _names(result: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in result["tools"]}


def _refused(result: dict[str, Any]) -> bool:
    return bool(result["isError"]) and "not offered" in text_of(result)


@asynccontextmanager
async def _raw_server() -> AsyncIterator[Raw]:
    async with (
        served(_registry(), ServeOptions()) as url,
        httpx.AsyncClient(timeout=WAIT_S) as http,
    ):
        yield Raw(http, url)


async def test_a_handshake_session_finds_calls_and_is_told_only_itself(lean: bool) -> None:
    async with _raw_server() as raw:
        a, b = await raw.session(), await raw.session()
        assert _names(_answer(await raw.legacy(a, "tools/list"))) == OFFERED
        assert _refused(_answer(await raw.legacy(a, "tools/call", CREATE)))

        found = await raw.legacy(a, "tools/call", SEARCH)
        assert "create_issue" in text_of(_answer(found))
        assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} in found

        assert _names(_answer(await raw.legacy(a, "tools/list"))) == OFFERED | {"create_issue"}
        called = _answer(await raw.legacy(a, "tools/call", CREATE))
        assert not called["isError"]
        assert "created 'Crash on login'" in text_of(called)

        assert _names(_answer(await raw.legacy(b, "tools/list"))) == OFFERED
        assert _refused(_answer(await raw.legacy(b, "tools/call", CREATE)))


async def test_a_stateless_client_lists_uncached_and_calls_without_relisting(lean: bool) -> None:
    async with _raw_server() as raw:
        listing = (await raw.modern("tools/list"))["result"]
        assert _names(listing) == OFFERED
        assert (listing["ttlMs"], listing["cacheScope"]) == (0, "private")  # per session
        assert _refused((await raw.modern("tools/call", CREATE))["result"])

        await raw.modern("tools/call", SEARCH)
        called = (await raw.modern("tools/call", CREATE))["result"]  # no tools/list between
        assert not called["isError"], called
        assert _names((await raw.modern("tools/list"))["result"]) == OFFERED | {"create_issue"}


async def test_what_one_principal_found_is_not_anothers(lean: bool) -> None:
    async with create_kv_backend("memory://") as kv:
        tokens = TokenStore(kv)
        everything = Grant.of(toolsets=["*"])
        alice_token = (await tokens.create("alice", everything)).token
        bob_token = (await tokens.create("bob", everything)).token
        auth = open_server_auth(AuthSettings(tokens=True, token_cache_s=0), kv)
        try:
            async with (
                served(_registry(), ServeOptions(auth=auth)) as url,
                httpx.AsyncClient(timeout=WAIT_S) as http,
            ):
                alice, bob = Client(http, url, alice_token), Client(http, url, bob_token)
                await alice.call("tool_search", query="open a ticket")
                assert not (await alice.call("create_issue", title="x"))["isError"]
                assert _refused(await bob.call("create_issue", title="x"))
                listed = (await bob.modern("tools/list"))["result"]
                assert "create_issue" not in _names(listed)
                session = await bob.open_session()  # bob's handshake session: nothing found
                assert _refused(await bob.call_in_session(session, "create_issue", title="x"))
        finally:
            await auth.aclose()


class Stdio:
    """``search_server.py`` over stdio, in raw JSON lines."""

    def __init__(self, lean: bool) -> None:
        env = {**os.environ, LEAN_ENV: "1" if lean else "0"}
        self.process = subprocess.Popen(
            [sys.executable, str(SEARCH_SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.seen: list[dict[str, Any]] = []
        self._id = 1

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._id += 1
        self.send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params or {}})
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            assert line, f"the server exited; it said {self.seen}"
            message: dict[str, Any] = json.loads(line)
            self.seen.append(message)
            if message.get("id") == self._id:
                result: dict[str, Any] = message["result"]
                return result

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()


@pytest.fixture(params=[True, False], ids=["lean", "sdk"])
def stdio(request: pytest.FixtureRequest) -> Iterator[Stdio]:
    wire = Stdio(bool(request.param))
    yield wire
    wire.process.kill()
    wire.process.wait(timeout=WAIT_S)


def test_a_stdio_client_finds_and_calls(stdio: Stdio) -> None:
    hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t"}}
    stdio.request("initialize", {**hello, "clientInfo": {"name": "t", "version": "1"}})
    stdio.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert _names(stdio.request("tools/list")) == OFFERED
    assert _refused(stdio.request("tools/call", CREATE))
    told = len(stdio.seen)
    assert "create_issue" in text_of(stdio.request("tools/call", SEARCH))
    assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} in stdio.seen[told:]
    assert _names(stdio.request("tools/list")) == OFFERED | {"create_issue"}
    assert "created 'Crash on login'" in text_of(stdio.request("tools/call", CREATE))


async def test_defer_loading_defers_a_bridged_servers_tools(tmp_path: Path) -> None:
    (tmp_path / "toolwire.toml").write_text(
        f"[mcp.servers.tracker]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SEARCH_SERVER))}]\ndefer_loading = true\n"
    )
    (configured,) = load_config(tmp_path / "toolwire.toml", env={}).mcp_servers
    assert configured.defer_loading
    plain = stdio_config("tracker", SEARCH_SERVER, tmp_path, defer_loading=True)
    config = dataclasses.replace(plain, env={**(plain.env or {}), "TEST_NOTHING_DEFERRED": "1"})
    registry = ToolRegistry()
    async with McpProvider(config) as provider:
        stop = bridge_into(registry, provider)
        bridged = {"mcp__tracker__create_issue", "mcp__tracker__read_notes"}
        assert registry.deferred_names == bridged
        assert [d["name"] for d in registry.definitions()] == ["tool_search"]
        ctx = ToolContext(session_id="s1")
        found = await registry.execute("tool_search", {"query": "open a ticket"}, ctx)
        assert found.result.structured["tools"][0]["name"] == "mcp__tracker__create_issue"  # type: ignore[union-attr]
        snapshot = await registry.tool_search.snapshot(ProviderContext(session_id="s1"))
        (outcome,) = await registry.execute_parallel(
            [{"id": "c1", "name": "mcp__tracker__create_issue", "args": {"title": "x"}}],
            ctx,
            snapshot=snapshot,
        )
        assert outcome.result.ok, outcome.result
        stop()


def _crowd() -> ToolRegistry:
    """Built-in todo and memory tools, 2,000 tools of the user's and ``create_issue``; past
    50 tools everything but the todo tools is deferred."""
    registry = _registry()
    kept = [t.name for t in todo_tools()]
    registry.register_all([*todo_tools(), *memory_tools()])
    registry.register_all(
        define_tool(
            name=f"inventory_{i}",
            description=f"Count the widgets of warehouse {i} by colour and size.",
            schema={"type": "object", "properties": {"bin": {"type": "string"}}},
            execute=_never,
        )
        for i in range(2000)
    )
    ToolSearch(registry, rules=DeferralRules(max_tools=50, keep=kept))
    return registry


async def _never(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    raise AssertionError("a deferred tool ran")


async def test_two_thousand_tools_offer_tool_search_and_what_is_kept(lean: bool) -> None:
    async with (
        served(_crowd(), ServeOptions()) as url,
        httpx.AsyncClient(timeout=WAIT_S) as http,
    ):
        raw = Raw(http, url)
        listed = _names((await raw.modern("tools/list"))["result"])
        assert listed == {"tool_search", *(t.name for t in todo_tools())}
        assert _refused((await raw.modern("tools/call", CREATE))["result"])
        found = (await raw.modern("tools/call", SEARCH))["result"]
        assert found["structuredContent"]["tools"][0]["name"] == "create_issue"
        called = (await raw.modern("tools/call", CREATE))["result"]
        assert "created 'Crash on login'" in text_of(called)
        assert _refused((await raw.modern("tools/call", {"name": "inventory_7"}))["result"])


async def test_a_task_runs_a_deferred_tool_only_once_its_session_found_it(lean: bool) -> None:
    async with (
        served(_registry(), ServeOptions()) as url,
        SdkClient(url, mode="legacy", read_timeout_seconds=WAIT_S) as client,  # 2025-11-25
    ):

        async def task_text() -> str:
            params = {**CREATE, "task": {"ttl": 60_000}}
            raw = await client.session._dispatcher.send_raw_request("tools/call", params, {})
            task = mt.CreateTaskResult.model_validate(raw).task
            request = mt.GetTaskPayloadRequest(
                params=mt.GetTaskPayloadRequestParams(task_id=task.task_id)
            )
            result = await client.session.send_request(request, mt.CallToolResult)
            return "".join(b.text for b in result.content if isinstance(b, mt.TextContent))

        assert "not offered" in await task_text()
        await client.call_tool("tool_search", {"query": "open a ticket"})
        assert "created 'Crash on login'" in await task_text()
