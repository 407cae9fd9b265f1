"""Result handles over MCP, driven by the SDK's client over stdio and streamable HTTP: the
trimmed text ends with the handle, a ``resource_link`` names it, ``resources/list`` and
``resources/read`` serve it (presented: secrets redacted, untrusted output wrapped), and
another session cannot read it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_helpers import SERVERS, HttpServer, start_http_server, stop

from toolwire.execution.handles import find_handle

pytestmark = pytest.mark.anyio

HANDLES_SERVER = SERVERS / "handles_server.py"
TIMEOUT_S = 15.0
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
TEXT = "".join(f"entry {i:05d}\n" for i in range(1000)) + f"token={SECRET}\n"


@pytest.fixture(scope="module")
def kv_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("kv") / "kv.db"


@pytest.fixture(scope="module")
def env(kv_file: Path, markers: Path) -> dict[str, str]:
    return {"TOOLWIRE_TEST_KV": str(kv_file), "TOOLWIRE_TEST_MARKERS": str(markers)}


@pytest.fixture(scope="module")
def handles_http(
    tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]
) -> Iterator[HttpServer]:
    server = start_http_server(HANDLES_SERVER, tmp_path_factory.mktemp("http"), env)
    yield server
    stop(server.process)


@asynccontextmanager
async def _client(target: Any, mode: str = "auto") -> AsyncIterator[Client]:
    with anyio.fail_after(TIMEOUT_S):
        async with Client(target, read_timeout_seconds=TIMEOUT_S, mode=mode) as connected:
            yield connected


def _stdio(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=[str(HANDLES_SERVER), "stdio"], env=env
    )


@pytest.fixture(scope="module", params=["stdio", "http"])
async def client(request: pytest.FixtureRequest, env: dict[str, str]) -> AsyncIterator[Client]:
    target = (
        _stdio(env) if request.param == "stdio" else request.getfixturevalue("handles_http").url
    )
    async with _client(target) as connected:
        yield connected


def _text(result: mt.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mt.TextContent))


def _link(result: mt.CallToolResult) -> mt.ResourceLink:
    links = [block for block in result.content if isinstance(block, mt.ResourceLink)]
    assert len(links) == 1, result.content
    return links[0]


async def _read(client: Client, uri: str) -> str:
    read = await client.read_resource(uri)
    assert len(read.contents) == 1
    content = read.contents[0]
    assert isinstance(content, mt.TextResourceContents)
    return content.text


async def test_a_trimmed_result_names_its_handle_in_the_text_and_as_a_resource_link(
    client: Client,
) -> None:
    result = await client.call_tool("big", {})
    assert result.is_error is False
    text = _text(result)
    handle = find_handle(text.removesuffix("\n===TOOL_RESULT_END==="))
    assert handle is not None
    assert "[truncated \u2014 " in text
    link = _link(result)
    assert str(link.uri) == f"toolwire://results/{handle}"
    assert link.name == handle


async def test_resources_read_answers_the_whole_text_with_secrets_redacted(client: Client) -> None:
    result = await client.call_tool("big", {})
    whole = await _read(client, str(_link(result).uri))
    assert whole.startswith(TEXT[:5000])
    assert SECRET not in whole
    assert "[REDACTED:" in whole
    assert len(whole) > 10_000


async def test_an_untrusted_tools_kept_text_is_read_wrapped(client: Client) -> None:
    result = await client.call_tool("web_page", {})
    whole = await _read(client, str(_link(result).uri))
    assert whole.startswith("<untrusted ")
    assert 'tool="web_page"' in whole.split("\n", 1)[0]
    assert whole.rstrip().endswith("</untrusted>")


async def test_resources_list_names_the_sessions_kept_results(client: Client) -> None:
    result = await client.call_tool("big", {})
    uri = str(_link(result).uri)
    listed = await client.list_resources()
    uris = [str(resource.uri) for resource in listed.resources]
    assert uri in uris
    entry = listed.resources[uris.index(uri)]
    assert entry.size == len(TEXT)


async def test_read_result_pages_through_the_kept_text(client: Client) -> None:
    result = await client.call_tool("big", {})
    handle = _link(result).name
    page = await client.call_tool("read_result", {"handle": handle, "start": 1300, "length": 26})
    assert page.is_error is False
    assert TEXT[1300:1326] in _text(page)


async def test_an_unknown_resource_is_resource_not_found(client: Client) -> None:
    with pytest.raises(MCPError) as caught:
        await client.read_resource("toolwire://results/h-0000000000000000")
    assert caught.value.code == -32002


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_another_session_cannot_read_the_handle(
    transport: str, env: dict[str, str], handles_http: HttpServer
) -> None:
    """Two stdio servers on one store, or two sessions of one HTTP server (a session id needs
    the initialize handshake: 2026-07-28 HTTP connections carry none, see the docs)."""
    target: Any = _stdio(env) if transport == "stdio" else handles_http.url
    async with _client(target, "legacy") as owner, _client(target, "legacy") as stranger:
        result = await owner.call_tool("big", {})
        link = _link(result)
        with pytest.raises(MCPError) as caught:
            await stranger.read_resource(str(link.uri))
        assert caught.value.code == -32002
        page = await stranger.call_tool("read_result", {"handle": link.name})
        assert page.is_error is True
        assert "another session" in _text(page)
        listed = await stranger.list_resources()
        assert str(link.uri) not in [str(resource.uri) for resource in listed.resources]
        assert (await _read(owner, str(link.uri))).startswith(TEXT[:100])
