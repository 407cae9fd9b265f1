"""`McpConnection` against real MCP servers: the lifecycle, the supervisor and its listings."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from pathlib import Path

import anyio
import mcp_types as mt
import pytest
from mcp_helpers import (
    REGISTRY_SERVER,
    SDK_SERVER,
    WAIT_S,
    never_starts,
    start_http_server,
    stdio_config,
    stop,
    wait_until,
)

from toolwire.errors import ProviderError
from toolwire.mcp import McpServerConfig
from toolwire.mcp.client.connection import McpConnection

pytestmark = pytest.mark.anyio


class Listings:
    """Records what ``on_tools`` hears."""

    def __init__(self) -> None:
        self.heard: list[list[str]] = []

    def __call__(self, tools: Sequence[mt.Tool]) -> None:
        self.heard.append([t.name for t in tools])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def task_ids() -> set[int]:
    return {task.id for task in anyio.get_running_tasks()}


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_entering_waits_for_the_link_and_hears_the_first_listing(markers: Path) -> None:
    listings = Listings()
    async with McpConnection(stdio_config("first", SDK_SERVER, markers), on_tools=listings) as c:
        assert c.connected
        assert c.link is not None
        assert c.last_error is None
        assert {"add", "grow", "pid"} <= {t.name for t in c.remote_tools}
        assert listings.heard == [[t.name for t in c.remote_tools]]


async def test_leaving_the_block_stops_the_supervisor_and_no_task_outlives_it(
    markers: Path,
) -> None:
    before = task_ids()
    async with McpConnection(stdio_config("brief", SDK_SERVER, markers), on_tools=Listings()) as c:
        assert task_ids() > before
        link = c.link
    assert task_ids() <= before
    assert c.link is None
    assert not c.connected
    assert link is not None
    assert not link.alive


async def test_leaving_the_block_ends_the_server_process(markers: Path) -> None:
    async with McpConnection(stdio_config("pid", SDK_SERVER, markers), on_tools=Listings()) as c:
        assert c.link is not None
        with anyio.fail_after(WAIT_S):
            result = await c.link.client.call_tool("pid", {})
        pid = int((result.structured_content or {})["result"])
        assert process_exists(pid)
    assert not process_exists(pid)


async def test_a_connect_that_times_out_leaves_no_task_behind() -> None:
    before = task_ids()
    connection = McpConnection(never_starts(connect_timeout_s=1.0), on_tools=Listings())
    with pytest.raises(ProviderError, match="did not connect within 1 s"):
        async with connection:
            pass
    assert task_ids() <= before
    assert not connection.connected


async def test_wait_connected_times_out_naming_the_last_error() -> None:
    config = McpServerConfig(name="nobody", url=f"http://127.0.0.1:{free_port()}/mcp")
    async with McpConnection(config, on_tools=Listings()).running() as connection:
        await wait_until(lambda: connection.last_error is not None, "a failed attempt")
        with pytest.raises(ProviderError, match=r"did not connect within 0\.5 s: ConnectError: "):
            await connection.wait_connected(0.5)


async def test_running_returns_at_once_and_keeps_retrying_until_the_server_is_up(
    markers: Path, tmp_path: Path
) -> None:
    port = free_port()
    config = McpServerConfig(
        name="late", url=f"http://127.0.0.1:{port}/mcp", connect_timeout_s=WAIT_S
    )
    listings = Listings()
    server = None
    try:
        entering = anyio.current_time()
        async with McpConnection(config, on_tools=listings).running() as connection:
            assert anyio.current_time() - entering < 1.0
            assert not connection.connected
            await wait_until(lambda: connection.last_error is not None, "a failed attempt")
            env = {"TOOLWIRE_TEST_MARKERS": str(markers), "TEST_PORT": str(port)}
            server = start_http_server(REGISTRY_SERVER, tmp_path, env, name="late")
            await connection.wait_connected(WAIT_S)
            assert listings.heard
            assert "echo" in listings.heard[-1]
    finally:
        if server is not None:
            stop(server.process)


async def test_on_tools_hears_a_listing_only_when_it_changed(markers: Path) -> None:
    listings = Listings()
    config = stdio_config("steady", SDK_SERVER, markers, ping_interval_s=0.2)
    async with McpConnection(config, on_tools=listings) as connection:
        await anyio.sleep(1.0)  # a few keep-alives (re-listings on 2026-07-28 links)
        assert len(listings.heard) == 1
        await connection.wait_connected(WAIT_S)
        assert connection.link is not None
        with anyio.fail_after(WAIT_S):
            await connection.link.client.call_tool("grow", {})
        await wait_until(lambda: len(listings.heard) == 2, "the changed listing")
        assert "extra" in listings.heard[1]


async def test_an_error_in_the_block_comes_out_as_itself(markers: Path) -> None:
    connection = McpConnection(stdio_config("oops", SDK_SERVER, markers), on_tools=Listings())
    with pytest.raises(LookupError, match="not in an exception group"):
        async with connection:
            raise LookupError("not in an exception group")
    with pytest.raises(LookupError, match="from running"):
        async with McpConnection(never_starts(), on_tools=Listings()).running():
            raise LookupError("from running")


async def test_a_connection_runs_once(markers: Path) -> None:
    connection = McpConnection(never_starts("once"), on_tools=Listings())
    async with connection.running():
        with pytest.raises(ProviderError, match="already ran"):
            async with connection.running():
                pass
    with pytest.raises(ProviderError, match="already ran"):
        async with connection:
            pass
