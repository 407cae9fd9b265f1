"""``web_search`` served by ``toolwire serve --stdio`` (what ``make run`` runs), driven by the
MCP SDK client: the provider chosen in ``toolwire.toml``'s ``[web_search]``, its key from the
environment, the request through the file's network policy to a local Brave API."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as mt
import pytest
from fakes.http_fake import FakeApi, serve
from fakes.providers import DOCS, KEYS, brave
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.anyio

WAIT_S = 60.0
CONFIG = """[network]
allow_private_urls = true
[store]
url = "memory://"
[tools]
toolsets = ["web"]
[sandbox]
mode = "off"
"""


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def brave_api() -> Iterator[FakeApi]:
    with serve(brave) as fake:
        yield fake


@asynccontextmanager
async def served(work: Path, fake: FakeApi, key: str | None) -> AsyncIterator[Client]:
    """``toolwire serve --stdio`` with the web toolset, ``[web_search]`` naming Brave at the
    fake, and ``BRAVE_API_KEY`` when ``key`` is given."""
    endpoint = fake.url("127.0.0.1", "/res/v1/web/search")
    table = f'[web_search]\nprovider = "brave"\nurl = "{endpoint}"\nmax_results = 4\n'
    (work / "toolwire.toml").write_text(CONFIG + table)
    env = {"TOOLWIRE_CONFIG": str(work / "toolwire.toml"), "HOME": str(work)}  # an empty vault
    if key is not None:
        env["BRAVE_API_KEY"] = key
    target = StdioServerParameters(
        command=sys.executable, args=["-m", "toolwire", "serve", "--stdio"], env=env, cwd=str(work)
    )
    with anyio.fail_after(WAIT_S):
        async with Client(target, read_timeout_seconds=WAIT_S) as client:
            yield client


def _text(result: mt.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mt.TextContent))


async def test_web_search_is_served_and_answers_from_the_provider(
    brave_api: FakeApi, tmp_path: Path
) -> None:
    async with served(tmp_path, brave_api, KEYS["brave"]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert {"web_search", "fetch_url"} <= set(tools)
        hints = tools["web_search"].annotations
        assert hints is not None
        assert hints.read_only_hint is True
        assert hints.open_world_hint is True
        schema = tools["web_search"].input_schema
        assert schema["properties"]["max_results"]["default"] == 4  # from the table
        result = await client.call_tool("web_search", {"query": "saint-malo", "max_results": 2})
    text = _text(result)
    assert result.is_error is False, text
    assert '2 results from Brave for "saint-malo"' in text
    assert DOCS[1]["url"] in text
    assert "<untrusted" in text  # the presenter marks what strangers wrote
    assert KEYS["brave"] not in text
    seen = brave_api.last
    assert seen.headers["x-subscription-token"] == KEYS["brave"]
    assert seen.query == {"q": ["saint-malo"], "count": ["2"]}


async def test_without_its_key_web_search_is_not_offered(
    brave_api: FakeApi, tmp_path: Path
) -> None:
    before = len(brave_api.requests)
    async with served(tmp_path, brave_api, None) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "fetch_url" in names
        assert "web_search" not in names
        result = await client.call_tool("web_search", {"query": "saint-malo"})
    assert result.is_error is True
    assert len(brave_api.requests) == before
