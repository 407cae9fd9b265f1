"""A call ends with the HTTP request that carried it: a client that closes the request's stream
aborts the call (unless the stream is resumable: then the answer is kept for the client to
resume), and a stopping server aborts every call and closes every stream."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from functools import partial

import anyio
import httpx
import pytest
from http_serving import HEADERS, HOLD_CALL, Gate, open_session, serving, session_headers
from mcp_helpers import WAIT_S

from toolwire.mcp import ServeOptions
from toolwire.mcp.server.fast_http import LEAN_ENV
from toolwire.mcp.server.resumable import RESUMABLE_SINCE, RETRY_INTERVAL_MS

pytestmark = pytest.mark.anyio

RESUMABLE = RESUMABLE_SINCE


async def test_closing_the_calls_stream_aborts_the_call() -> None:
    gate = Gate()
    async with serving(ServeOptions(), gate) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        session = await open_session(http, server.url)
        headers = session_headers(session)
        async with http.stream("POST", server.url, json=HOLD_CALL, headers=headers):
            with anyio.fail_after(WAIT_S):
                await gate.entered.wait()
        # the connection is closed without reading the answer, and no cancellation is sent
        with anyio.fail_after(WAIT_S):
            await gate.left.wait()
        assert gate.reasons == ["cancelled by the MCP client (it disconnected)"]
        assert (
            await http.post(
                server.url, json={"jsonrpc": "2.0", "id": 9, "method": "ping"}, headers=headers
            )
        ).status_code == 200  # the session lives on


_STATELESS = "2026-07-28"
_STATELESS_META = {
    "io.modelcontextprotocol/protocolVersion": _STATELESS,
    "io.modelcontextprotocol/clientCapabilities": {},
}
_STATELESS_HOLD = {**HOLD_CALL, "params": {"name": "hold", "_meta": _STATELESS_META}}
_STATELESS_HEADERS = {
    **HEADERS,
    "mcp-protocol-version": _STATELESS,
    "mcp-method": "tools/call",
    "mcp-name": "hold",
}


async def test_closing_a_stateless_call_s_request_aborts_it_on_the_fast_path() -> None:
    """The fast path watches its own calls: the disconnect reaches the call once it waits."""
    gate = Gate()
    async with serving(ServeOptions(), gate) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        async with anyio.create_task_group() as group:  # no head comes before the answer
            group.start_soon(
                partial(http.post, server.url, json=_STATELESS_HOLD, headers=_STATELESS_HEADERS)
            )
            with anyio.fail_after(WAIT_S):
                await gate.entered.wait()
            group.cancel_scope.cancel()  # the client gives up: its connection is closed
        with anyio.fail_after(WAIT_S):
            await gate.left.wait()
        assert gate.reasons == ["cancelled by the MCP client (it disconnected)"]


async def test_stopping_the_server_aborts_a_stateless_call_on_the_fast_path() -> None:
    gate = Gate()
    async with serving(ServeOptions(), gate) as server, httpx.AsyncClient(timeout=WAIT_S) as http:

        async def call() -> None:
            with contextlib.suppress(httpx.HTTPError):
                await http.post(server.url, json=_STATELESS_HOLD, headers=_STATELESS_HEADERS)

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            with anyio.fail_after(WAIT_S):
                await gate.entered.wait()
            server.scope.cancel()
            with anyio.fail_after(WAIT_S):
                await server.finished.wait()
        assert gate.reasons == ["the MCP server is stopping"]


async def test_stopping_the_server_aborts_calls_and_closes_open_streams() -> None:
    gate = Gate()
    async with serving(ServeOptions(), gate) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        session = await open_session(http, server.url)
        headers = session_headers(session)

        async def listen() -> None:  # the standalone GET stream a client keeps open
            with contextlib.suppress(httpx.HTTPError):
                async with http.stream("GET", server.url, headers=headers) as stream:
                    async for _ in stream.aiter_bytes():
                        pass

        async def call() -> None:
            with contextlib.suppress(httpx.HTTPError):
                await http.post(server.url, json=HOLD_CALL, headers=headers)

        async with anyio.create_task_group() as group:
            group.start_soon(listen)
            group.start_soon(call)
            with anyio.fail_after(WAIT_S):
                await gate.entered.wait()
            server.scope.cancel()
            with anyio.fail_after(WAIT_S):
                await server.finished.wait()  # it did not wait for the client to let go
        assert gate.reasons == ["the MCP server is stopping"]


async def test_a_newcomer_after_stop_finds_nothing_listening() -> None:
    async with serving(ServeOptions()) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        server.scope.cancel()
        with anyio.fail_after(WAIT_S):
            await server.finished.wait()
        with pytest.raises(httpx.ConnectError):
            await http.post(server.url, json={}, headers=HEADERS)


async def _events(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, str]]:
    """The SSE events of a response, as their fields."""
    event: dict[str, str] = {}
    async for line in lines:
        if not line:
            if event:
                yield event
            event = {}
            continue
        name, _, value = line.partition(":")
        event[name] = value.removeprefix(" ")


@pytest.mark.parametrize("label", [RESUMABLE, "2025-03-26"])
async def test_closing_a_resumable_stream_leaves_the_call_running_and_its_answer_kept(
    label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2025-11-25 session's stream starts with a priming event, so a client that closes it
    can resume it: the call goes on, and its answer is replayed after ``Last-Event-ID`` (also
    when the request is labelled with an older revision than the session's)."""
    monkeypatch.setenv(LEAN_ENV, "0")  # the SDK's SSE path (the fast path answers JSON)
    gate = Gate()
    async with serving(ServeOptions(), gate) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        session = await open_session(http, server.url, RESUMABLE)
        headers = session_headers(session, label)
        async with http.stream("POST", server.url, json=HOLD_CALL, headers=headers) as stream:
            with anyio.fail_after(WAIT_S):
                priming = await anext(_events(stream.aiter_lines()))
                await gate.entered.wait()
        assert priming["data"] == ""
        assert priming["retry"] == str(RETRY_INTERVAL_MS)
        await anyio.sleep(0.2)  # the hang-up would have aborted the call by now
        assert not gate.left.is_set()
        gate.opened.set()
        with anyio.fail_after(WAIT_S):
            await gate.left.wait()
        assert gate.reasons == [None]  # never aborted
        resume = {**headers, "last-event-id": priming["id"]}
        answers = []
        with anyio.fail_after(WAIT_S):
            async with http.stream("GET", server.url, headers=resume) as replay:
                async for event in _events(replay.aiter_lines()):
                    if event.get("data"):
                        answers.append(json.loads(event["data"]))
                        break
    assert answers[0]["id"] == HOLD_CALL["id"]
    assert "released" in answers[0]["result"]["content"][0]["text"]


async def test_an_older_session_s_stream_is_not_resumable_and_closing_it_aborts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No priming event before 2025-11-25: the closed stream's answer could never arrive."""
    monkeypatch.setenv(LEAN_ENV, "0")
    gate = Gate()
    async with serving(ServeOptions(), gate) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        session = await open_session(http, server.url)  # 2025-06-18
        async with http.stream(
            "POST", server.url, json=HOLD_CALL, headers=session_headers(session)
        ) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            with anyio.fail_after(WAIT_S):
                await gate.entered.wait()
        with anyio.fail_after(WAIT_S):
            await gate.left.wait()
    assert gate.reasons == ["cancelled by the MCP client (it disconnected)"]


@pytest.mark.parametrize("lean", ["1", "0"])
async def test_a_handshake_era_cancellation_aborts_the_call(
    lean: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (outside check, issue 23): the HTTP fast path answers a handshake-era call
    itself, so the SDK, which gets the client's ``notifications/cancelled``, never knew the
    call and the tool ran on. Fast path on and off."""
    monkeypatch.setenv(LEAN_ENV, lean)
    gate = Gate()
    async with serving(ServeOptions(), gate) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        session = await open_session(http, server.url)
        headers = session_headers(session)
        async with anyio.create_task_group() as group:

            async def call() -> None:
                async with http.stream("POST", server.url, json=HOLD_CALL, headers=headers) as r:
                    await r.aread()

            group.start_soon(call)
            with anyio.fail_after(WAIT_S):
                await gate.entered.wait()
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": HOLD_CALL["id"], "reason": "the user changed their mind"},
            }
            answer = await http.post(server.url, json=cancel, headers=headers)
            assert answer.status_code == 202
            with anyio.fail_after(WAIT_S):
                await gate.left.wait()
        assert len(gate.reasons) == 1  # the tool left before its gate opened: it was stopped
        if lean == "1":  # the fast path fires the call's abort with the client's reason
            assert gate.reasons == ["cancelled by the MCP client: the user changed their mind"]
