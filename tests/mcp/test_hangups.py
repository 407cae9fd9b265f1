"""A call ends with the HTTP request that carried it: a client that closes the request's stream
aborts the call, and a stopping server aborts every call and closes every stream."""

from __future__ import annotations

import contextlib

import anyio
import httpx
import pytest
from http_serving import HEADERS, HOLD_CALL, Gate, open_session, serving, session_headers
from mcp_helpers import WAIT_S

from toolwire.mcp import ServeOptions

pytestmark = pytest.mark.anyio


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
