"""The fast path (`toolwire.mcp.lean`): the same answers as the SDK path, and everything else
still reaches the SDK.

Two `serve_http` servers of the same registry run side by side, one with the fast path and
one without (``TOOLWIRE_MCP_LEAN=0``); raw requests on both revisions must get the same
status and the same JSON-RPC answer, and the SDK client must work through the fast path.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client import Client
from mcp_helpers import WAIT_S

from toolwire import ToolRegistry, tool
from toolwire.mcp import ServeOptions, serve_http
from toolwire.mcp.lean import LEAN_ENV, parse_lean_request

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


@asynccontextmanager
async def _server(lean: bool, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    monkeypatch.setenv(LEAN_ENV, "1" if lean else "0")
    urls: list[str] = []
    ready = anyio.Event()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    async with anyio.create_task_group() as group:
        group.start_soon(lambda: serve_http(_registry(), ServeOptions(), port=0, on_ready=on_ready))
        with anyio.fail_after(WAIT_S):
            await ready.wait()
        yield urls[0]
        group.cancel_scope.cancel()


@asynccontextmanager
async def _pair(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[str, str]]:
    async with _server(True, monkeypatch) as lean, _server(False, monkeypatch) as sdk:
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
