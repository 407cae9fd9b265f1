"""The fast path (`toolwire.mcp.server.fast_http`): the same answers as the SDK path, and everything
else still reaches the SDK.

Two `serve_http` servers of the same registry run side by side, one with the fast path and
one without (``TOOLWIRE_MCP_LEAN=0``); raw requests on both revisions must get the same
status and the same JSON-RPC answer, and the SDK client must work through the fast path.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lean_peer_tools import indirect_logger
from mcp.client import Client
from mcp_helpers import WAIT_S

from toolwire import ToolRegistry, tool
from toolwire.mcp import ServeOptions, serve_http
from toolwire.mcp.server.fast_http import LEAN_ENV, LeanFront, parse_lean_request
from toolwire.mcp.server.peer import PeerUnavailableError, current_peer

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
CAPS = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _registry() -> ToolRegistry:
    @tool
    async def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @tool
    async def fail(reason: str) -> str:
        """Always fails."""
        raise ValueError(reason)

    registry = ToolRegistry()
    registry.register(add)
    registry.register(fail)
    return registry


@tool
async def peer_probe(level: str = "info") -> str:
    """Report what the MCP client can do, log a line through it, and ask it a question."""
    peer = current_peer()
    if peer is None:
        return "no client"
    await peer.log("info", f"probing at {level}")
    try:
        answer = await peer.sample("six times seven?", max_tokens=5)
    except PeerUnavailableError as refused:
        return f"sampling={peer.can_sample} roots={peer.can_list_roots}: {refused}"
    return f"sampled {answer.content}"


def _peer_registry() -> ToolRegistry:
    registry = _registry()
    registry.register(peer_probe)
    registry.register(indirect_logger())
    return registry


@asynccontextmanager
async def _server(
    lean: bool,
    monkeypatch: pytest.MonkeyPatch,
    registry: Callable[[], ToolRegistry] = _registry,
    options: ServeOptions | None = None,
) -> AsyncIterator[str]:
    monkeypatch.setenv(LEAN_ENV, "1" if lean else "0")
    urls: list[str] = []
    ready = anyio.Event()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    served = registry()
    async with anyio.create_task_group() as group:
        group.start_soon(
            lambda: serve_http(served, options or ServeOptions(), port=0, on_ready=on_ready)
        )
        with anyio.fail_after(WAIT_S):
            await ready.wait()
        yield urls[0]
        group.cancel_scope.cancel()


@asynccontextmanager
async def _pair(
    monkeypatch: pytest.MonkeyPatch,
    registry: Callable[[], ToolRegistry] = _registry,
    options: ServeOptions | None = None,
) -> AsyncIterator[tuple[str, str]]:
    async with (
        _server(True, monkeypatch, registry, options) as lean,
        _server(False, monkeypatch, registry, options) as sdk,
    ):
        yield lean, sdk


def _modern(
    method: str, params: dict[str, Any], rid: int = 7
) -> tuple[dict[str, Any], dict[str, str]]:
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": CAPS}}
    headers = {**ACCEPT, "mcp-protocol-version": MODERN, "mcp-method": method}
    if "name" in params:
        headers["mcp-name"] = params["name"]
    return body, headers


async def _legacy_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
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
    answer = await http.post(url, json=hello, headers=ACCEPT)
    headers = {
        **ACCEPT,
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": LEGACY,
    }
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=done, headers=headers)).status_code == 202
    return headers


def _messages(answer: httpx.Response) -> list[Any]:
    """Every JSON-RPC message of an answer (one for JSON, each event's for SSE)."""
    if not answer.headers.get("content-type", "").startswith("text/event-stream"):
        return [answer.json()]
    data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
    return [json.loads(d) for d in data if d.strip()]


def _answer(answer: httpx.Response) -> Any:
    """The JSON-RPC message of a JSON answer, else the text (a refusal's)."""
    if answer.headers.get("content-type", "").startswith("application/json"):
        return answer.json()
    return answer.text


def _payload(answer: httpx.Response) -> Any:
    """The JSON-RPC message of an answer, whether JSON or a one-event SSE stream."""
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
        messages = [json.loads(d) for d in data if d.strip()]
        return [m for m in messages if "id" in m][-1]
    return answer.json()


CASES: list[tuple[str, dict[str, Any]]] = [
    ("tools/list", {}),
    ("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
    ("tools/call", {"name": "add", "arguments": {"a": "x", "b": 3}}),
    ("tools/call", {"name": "add", "arguments": {"a": 1}}),
    ("tools/call", {"name": "fail", "arguments": {"reason": "boom"}}),
    ("tools/call", {"name": "missing", "arguments": {}}),
    ("tools/call", {"name": "add"}),
]


@pytest.mark.parametrize(("method", "params"), CASES)
async def test_modern_answers_match_the_sdk_path(
    method: str, params: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _pair(monkeypatch) as (lean, sdk), httpx.AsyncClient() as http:
        body, headers = _modern(method, params)
        fast, slow = (
            await http.post(lean, json=body, headers=headers),
            await http.post(sdk, json=body, headers=headers),
        )
        assert fast.status_code == slow.status_code
        assert _payload(fast) == _payload(slow)


@pytest.mark.parametrize(("method", "params"), CASES)
async def test_legacy_answers_match_the_sdk_path(
    method: str, params: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _pair(monkeypatch) as (lean, sdk), httpx.AsyncClient() as http:
        message = {"jsonrpc": "2.0", "id": 9, "method": method, "params": params}
        fast = await http.post(lean, json=message, headers=await _legacy_session(http, lean))
        slow = await http.post(sdk, json=message, headers=await _legacy_session(http, sdk))
        assert fast.status_code == slow.status_code
        assert _payload(fast) == _payload(slow)


async def test_a_plain_call_is_answered_with_json(monkeypatch: pytest.MonkeyPatch) -> None:
    async with _server(True, monkeypatch) as url, httpx.AsyncClient() as http:
        body, headers = _modern("tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}})
        answer = await http.post(url, json=body, headers=headers)
    assert answer.headers["content-type"] == "application/json"
    assert "\n4\n" in answer.json()["result"]["content"][0]["text"]


async def test_unknown_session_and_bad_envelope_still_get_the_sdk_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with _pair(monkeypatch) as (lean, sdk), httpx.AsyncClient() as http:
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        stale = {**ACCEPT, "mcp-session-id": "nope", "mcp-protocol-version": LEGACY}
        body, headers = _modern("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
        mismatched = {**headers, "mcp-name": "other"}
        for args in (
            (listing, stale),
            (body, mismatched),
            (body, {**headers, "accept": "text/plain"}),
        ):
            fast = await http.post(lean, json=args[0], headers=args[1])
            slow = await http.post(sdk, json=args[0], headers=args[1])
            assert (fast.status_code, fast.text) == (slow.status_code, slow.text)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_client_calls_through_the_fast_path(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with (
        _server(True, monkeypatch) as url,
        Client(url, mode=mode) as client,  # type: ignore[arg-type]
    ):
        assert (client.protocol_version == MODERN) == (mode == "auto")
        listed = await client.list_tools()
        result = await client.call_tool("add", {"a": 20, "b": 22})
    assert {t.name for t in listed.tools} == {"add", "fail"}
    assert "\n42\n" in result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200) | st.from_regex(rb'\{"jsonrpc":"2\.0".{0,60}\}', fullmatch=True))
def test_the_envelope_parser_never_raises(body: bytes) -> None:
    for headers in ({}, {"mcp-protocol-version": MODERN}, {"mcp-session-id": "s"}):
        parsed = parse_lean_request(body, headers)
        assert parsed is None or parsed.method in ("tools/call", "tools/list")


def test_requests_left_to_the_sdk() -> None:
    session = {"mcp-session-id": "s"}

    def call(**params: Any) -> bytes:
        return json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        ).encode()

    assert parse_lean_request(call(name="add", arguments={}), session) is not None
    assert parse_lean_request(call(name="add", _meta={"progressToken": 1}), session) is None
    assert parse_lean_request(call(name="add", task={"ttl": 1}), session) is None
    assert (
        parse_lean_request(call(name="add", requestState="x", inputResponses={}), session) is None
    )
    assert parse_lean_request(call(name=3), session) is None
    assert parse_lean_request(b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', session) is None
    initialize = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
    assert parse_lean_request(initialize, {}) is None
    assert (
        parse_lean_request(call(name="add"), {"mcp-protocol-version": MODERN}) is None
    )  # no _meta


# -- tools/list: the same fields as the SDK path -----------------------------------------------


async def test_the_listing_carries_the_sdk_paths_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    options = ServeOptions(tools_list_ttl_s=42)
    async with _pair(monkeypatch, options=options) as (lean, sdk), httpx.AsyncClient() as http:
        body, headers = _modern("tools/list", {})
        fast = await http.post(lean, json=body, headers=headers)
        slow = await http.post(sdk, json=body, headers=headers)
    assert fast.headers["content-type"] == "application/json"
    assert _payload(fast) == _payload(slow)
    result = _payload(fast)["result"]
    assert result["ttlMs"] == 42_000
    assert {"resultType", "cacheScope", "_meta", "tools"} <= set(result)


# -- what the SDK refuses, the fast path hands to it -------------------------------------------


async def test_a_repeated_routing_header_gets_the_sdks_refusal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with _pair(monkeypatch) as (lean, sdk), httpx.AsyncClient() as http:
        body, headers = _modern("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
        repeated = [*headers.items(), ("mcp-method", "tools/call")]
        content = json.dumps(body).encode()
        fast = await http.post(lean, content=content, headers=repeated)
        slow = await http.post(sdk, content=content, headers=repeated)
    assert slow.status_code == 400
    assert (fast.status_code, _payload(fast)) == (slow.status_code, _payload(slow))


async def test_an_oversized_body_gets_the_sdks_413(monkeypatch: pytest.MonkeyPatch) -> None:
    padding = "x" * (4 * 1024 * 1024)
    async with _pair(monkeypatch) as (lean, sdk), httpx.AsyncClient() as http:
        body, headers = _modern("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
        body["params"]["_meta"] = {**CAPS, "padding": padding}
        fast = await http.post(lean, json=body, headers=headers)
        slow = await http.post(sdk, json=body, headers=headers)
    assert slow.status_code == 413
    assert (fast.status_code, fast.text) == (slow.status_code, slow.text)


async def test_other_methods_and_paths_still_reach_starlette(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with _pair(monkeypatch) as (lean, sdk), httpx.AsyncClient() as http:
        for method, path in (("GET", ""), ("DELETE", ""), ("POST", "/elsewhere"), ("GET", "/x")):
            fast = await http.request(method, lean + path, headers=ACCEPT)
            slow = await http.request(method, sdk + path, headers=ACCEPT)
            assert (fast.status_code, fast.text) == (slow.status_code, slow.text)


async def test_the_front_routes_only_posts_to_the_endpoint() -> None:
    seen: list[str] = []

    def app(name: str) -> Any:
        async def record(scope: Any, receive: Any, send: Any) -> None:
            seen.append(name)

        return record

    front = LeanFront(app("starlette"), "/mcp", app("endpoint"))
    cases = [
        ({"type": "http", "method": "POST", "path": "/mcp"}, "endpoint"),
        ({"type": "http", "method": "POST", "path": "/x/mcp", "root_path": "/x"}, "endpoint"),
        ({"type": "http", "method": "POST", "path": "/mcp/"}, "starlette"),
        ({"type": "http", "method": "POST", "path": "/x/mcp"}, "starlette"),
        ({"type": "http", "method": "GET", "path": "/mcp"}, "starlette"),
        ({"type": "lifespan"}, "starlette"),
    ]
    for scope, expected in cases:
        await front(scope, None, None)
        assert seen.pop() == expected, scope


# -- a tool that talks to its client -----------------------------------------------------------


@pytest.mark.parametrize(
    "capabilities",
    [{}, {"sampling": {}}, {"roots": {}}, {"elicitation": {"form": {}}}],
    ids=["none", "sampling", "roots", "elicitation"],
)
async def test_a_modern_peer_acts_as_on_the_sdk_path(
    capabilities: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with (
        _pair(monkeypatch, _peer_registry) as (lean, sdk),
        httpx.AsyncClient() as http,
    ):
        for log_level in (None, "debug"):
            body, headers = _modern("tools/call", {"name": "peer_probe", "arguments": {}})
            meta = {**CAPS, "io.modelcontextprotocol/clientCapabilities": capabilities}
            if log_level is not None:
                meta["io.modelcontextprotocol/logLevel"] = log_level
            body["params"]["_meta"] = meta
            fast = await http.post(lean, json=body, headers=headers)
            slow = await http.post(sdk, json=body, headers=headers)
            assert fast.status_code == slow.status_code == 200
            assert _messages(fast) == _messages(slow)
    assert capabilities or "sampling=False roots=False" in str(_messages(fast))


async def test_a_session_tool_that_names_its_peer_goes_to_the_sdk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with (
        _pair(monkeypatch, _peer_registry) as (lean, sdk),
        httpx.AsyncClient() as http,
    ):
        message = {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "peer_probe"},
        }
        fast = await http.post(lean, json=message, headers=await _legacy_session(http, lean))
        slow = await http.post(sdk, json=message, headers=await _legacy_session(http, sdk))
    logs = [m for m in _messages(fast) if m.get("method") == "notifications/message"]
    assert [log["params"]["data"] for log in logs] == ["probing at info"]
    assert _messages(fast) == _messages(slow)


async def test_a_session_tool_using_its_peer_is_learned(monkeypatch: pytest.MonkeyPatch) -> None:
    async with _server(True, monkeypatch, _peer_registry) as url, httpx.AsyncClient() as http:
        headers = await _legacy_session(http, url)
        message = {"jsonrpc": "2.0", "id": 5, "method": "tools/call"}
        message["params"] = {"name": "indirect_log", "arguments": {}}
        first = await http.post(url, json=message, headers=headers)
        second = await http.post(url, json=message, headers=headers)
    assert first.headers["content-type"] == "application/json"  # the fast path; nothing logged
    assert [m.get("method") for m in _messages(first)] == [None]
    methods = [m.get("method") for m in _messages(second)]  # the SDK path: the line arrives
    assert "notifications/message" in methods
    assert "logged" in str(_payload(second)["result"])
    assert "logged" in str(first.json())


# -- a body cut short by a disconnect -----------------------------------------------------------


async def test_a_body_cut_short_goes_to_the_sdk_as_it_was_read() -> None:
    from toolwire.mcp.server._server import build_mcp_server
    from toolwire.mcp.server.fast_http import LeanPath
    from toolwire.mcp.server.hangups import HangupWatcher
    from toolwire.mcp.server.sessions import BoundedSessionManager

    server = build_mcp_server(_registry())
    sessions = BoundedSessionManager(server.sdk, idle_timeout_s=60, max_sessions=4)
    handed: list[list[Any]] = []

    async def sdk(scope: Any, receive: Any, send: Any) -> None:
        handed.append([await receive(), await receive()])

    lean = LeanPath(HangupWatcher(sdk), server, sessions, None)
    body, headers = _modern("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
    whole = json.dumps(body).encode()
    messages = [
        {"type": "http.request", "body": whole[:-5], "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> Any:
        return messages.pop(0)

    async def send(message: Any) -> None:
        raise AssertionError(f"the fast path answered a cut body: {message}")

    raw = [(k.encode(), v.encode()) for k, v in {**headers, "host": "127.0.0.1:1"}.items()]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": raw}
    await lean(scope, receive, send)
    [(first, second)] = handed
    assert first == {"type": "http.request", "body": whole[:-5], "more_body": True}
    assert second == {"type": "http.disconnect"}


async def test_host_origin_and_content_type_refusals_match_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with _pair(monkeypatch) as (lean, sdk), httpx.AsyncClient() as http:
        body, headers = _modern("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
        for changed in (
            {"host": "evil.example:80"},
            {"origin": "http://evil.example"},
            {"content-type": "text/plain"},
            {},
        ):
            for _ in range(2):  # the second time from the fast path's memory of the first
                content = json.dumps(body).encode()
                fast = await http.post(lean, content=content, headers={**headers, **changed})
                slow = await http.post(sdk, content=content, headers={**headers, **changed})
                assert fast.status_code == slow.status_code, changed
                assert _answer(fast) == _answer(slow), changed
