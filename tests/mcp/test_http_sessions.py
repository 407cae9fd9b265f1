"""Streamable HTTP sessions are bounded: idle ones expire, and at the cap the longest idle one
makes room for a newcomer instead of the newcomer being refused."""

from __future__ import annotations

import anyio
import httpx
import pytest
from http_serving import HEADERS, HOLD_CALL, Gate, open_session, serving, session_headers, status_of
from mcp_helpers import WAIT_S

from toolwire.mcp import ServeOptions

pytestmark = pytest.mark.anyio

LONG_IDLE_S = 600.0
"""An idle timeout no test reaches: sessions then end only by eviction."""


async def test_at_the_cap_the_oldest_idle_session_makes_room_for_a_newcomer() -> None:
    options = ServeOptions(max_sessions=2, session_idle_timeout_s=LONG_IDLE_S)
    async with serving(options) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        first = await open_session(http, server.url)
        second = await open_session(http, server.url)
        third = await open_session(http, server.url)  # the SDK refused it with 503
        assert await status_of(http, server.url, first) == 404  # the spec's "session not found"
        assert await status_of(http, server.url, second) == 200
        assert await status_of(http, server.url, third) == 200


async def test_the_session_idle_longest_is_evicted_not_the_oldest_opened() -> None:
    options = ServeOptions(max_sessions=2, session_idle_timeout_s=LONG_IDLE_S)
    async with serving(options) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        first = await open_session(http, server.url)
        second = await open_session(http, server.url)
        assert await status_of(http, server.url, first) == 200  # `second` is now idle longest
        third = await open_session(http, server.url)
        assert await status_of(http, server.url, second) == 404
        assert await status_of(http, server.url, first) == 200
        assert await status_of(http, server.url, third) == 200


async def test_a_session_with_a_call_in_flight_is_never_evicted() -> None:
    gate = Gate()
    options = ServeOptions(max_sessions=1, session_idle_timeout_s=LONG_IDLE_S)
    async with serving(options, gate) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        busy = await open_session(http, server.url)
        answers: list[httpx.Response] = []

        async def call_hold() -> None:
            headers = session_headers(busy)
            answers.append(await http.post(server.url, json=HOLD_CALL, headers=headers))

        async with anyio.create_task_group() as group:
            group.start_soon(call_hold)
            with anyio.fail_after(WAIT_S):
                await gate.entered.wait()
            hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
            refused = await http.post(server.url, json=hello, headers=HEADERS)
            assert refused.status_code == 503  # every session is busy: nothing to evict
            gate.opened.set()
        assert answers[0].status_code == 200
        assert "released" in answers[0].text


async def test_an_idle_session_expires_after_the_idle_timeout() -> None:
    idle_s = 0.5
    options = ServeOptions(max_sessions=10, session_idle_timeout_s=idle_s)
    async with serving(options) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        session = await open_session(http, server.url)
        with anyio.fail_after(WAIT_S):
            while True:
                await anyio.sleep(4 * idle_s)  # a probe is a request: it restarts the timer
                if await status_of(http, server.url, session) == 404:
                    break
