"""`toolwire` as an MCP server, driven by the official SDK client over stdio and HTTP."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import REGISTRY_SERVER, HttpServer

pytestmark = pytest.mark.anyio

CALL_TIMEOUT_S = 15.0


@pytest.fixture(scope="module", params=["stdio", "http"])
async def client(request: pytest.FixtureRequest, markers: Path) -> AsyncIterator[Client]:
    """An SDK client connected to the test registry over each transport."""
    if request.param == "stdio":
        target: Any = StdioServerParameters(
            command=sys.executable,
            args=[str(REGISTRY_SERVER), "stdio"],
            env={"TOOLWIRE_TEST_MARKERS": str(markers)},
        )
    else:
        server: HttpServer = request.getfixturevalue("registry_http")
        target = server.url
    with anyio.fail_after(CALL_TIMEOUT_S):
        async with Client(target, read_timeout_seconds=CALL_TIMEOUT_S) as connected:
            yield connected


async def _wait_for(path: Path) -> str:
    file = anyio.Path(path)
    with anyio.fail_after(CALL_TIMEOUT_S):
        while not await file.exists() or not await file.read_text():
            await anyio.sleep(0.02)
    return await file.read_text()


def _text(result: mt.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mt.TextContent))


async def test_list_tools_turns_annotations_into_hints(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    echo = tools["echo"]
    assert echo.annotations is not None
    assert echo.annotations.read_only_hint is True
    assert echo.annotations.idempotent_hint is True
    assert echo.title == "Echo"
    assert echo.input_schema["required"] == ["text"]
    assert tools["structured"].annotations is not None
    assert tools["structured"].annotations.destructive_hint is False
    slow = tools["slow"].annotations  # none declared: every hint explicit, cautious defaults
    assert slow is not None
    assert (slow.read_only_hint, slow.destructive_hint, slow.open_world_hint) == (False, True, True)


async def test_call_returns_the_presented_result(client: Client) -> None:
    result = await client.call_tool("echo", {"text": "hello there"})
    assert result.is_error is False
    assert _text(result) == "===TOOL_RESULT_START:echo===\nhello there\n===TOOL_RESULT_END==="


async def test_err_result_is_an_mcp_error_result_with_the_message(client: Client) -> None:
    result = await client.call_tool("fail", {})
    assert result.is_error is True
    assert _text(result) == "the widget is broken"


async def test_invalid_arguments_come_back_as_an_error_result(client: Client) -> None:
    result = await client.call_tool("echo", {"text": 5})
    assert result.is_error is True
    assert "text" in _text(result)


async def test_unknown_tool_is_an_error_result_not_a_protocol_failure(client: Client) -> None:
    result = await client.call_tool("no_such_tool", {})
    assert result.is_error is True
    assert _text(result) == "Unknown tool: no_such_tool"


async def test_structured_becomes_structured_content(client: Client) -> None:
    result = await client.call_tool("structured", {})
    assert result.structured_content == {"count": 3, "items": ["a", "b", "c"]}
    assert "3 items" in _text(result)


async def test_a_twenty_megabyte_result_arrives_trimmed(client: Client) -> None:
    result = await client.call_tool("big", {})
    text = _text(result)
    assert result.is_error is False
    assert len(text) < 81_000
    assert "[truncated — 20000000 chars total]" in text


async def test_user_progress_becomes_progress_notifications(client: Client) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    result = await client.call_tool("progress", {}, progress_callback=on_progress)
    assert result.is_error is False
    with anyio.fail_after(CALL_TIMEOUT_S):
        while len(seen) < 3:
            await anyio.sleep(0.01)
    assert seen == [(25.0, 100.0, "step 1"), (50.0, 100.0, "step 2"), (75.0, 100.0, "step 3")]


async def test_cancelling_a_call_cancels_the_tool(client: Client, markers: Path) -> None:
    tag = f"slow-{uuid.uuid4().hex}"
    with anyio.move_on_after(0.5):
        await client.call_tool("slow", {"seconds": 30, "tag": tag})
    assert (await _wait_for(markers / tag)).startswith("cancelled")
    after = await client.call_tool("echo", {"text": "still alive"})
    assert "still alive" in _text(after)


async def test_cancelling_a_sync_tool_fires_the_abort_signal_it_polls(
    client: Client, markers: Path
) -> None:
    tag = f"sync-{uuid.uuid4().hex}"
    with anyio.move_on_after(0.5):
        await client.call_tool("sync_wait", {"seconds": 30, "tag": tag})
    # over 2026-07-28 HTTP a client cancels by closing the request: "... (it disconnected)"
    assert (await _wait_for(markers / tag)).startswith("sync aborted: cancelled by the MCP client")


async def test_the_handshake_era_protocol_is_served_too() -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(REGISTRY_SERVER), "stdio"])
    with anyio.fail_after(CALL_TIMEOUT_S):
        async with Client(params, mode="legacy") as legacy:
            assert legacy.protocol_version != "2026-07-28"
            result = await legacy.call_tool("echo", {"text": "old"})
    assert "old" in _text(result)
