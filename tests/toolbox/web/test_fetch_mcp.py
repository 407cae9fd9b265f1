"""``fetch_url`` served by ``toolwire serve --stdio`` (the ``web`` toolset of a toolwire.toml),
driven by the MCP SDK's client: Markdown as text content, an image as image content."""

from __future__ import annotations

import base64
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import mcp_types as mt
import pytest
from fetch_site import ARTICLE_PARAGRAPHS, NAV_WORDS, Site, png_bytes, run_site
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.anyio

CALL_TIMEOUT_S = 30.0
CONFIG = """\
[network]
allow_private_urls = true

[store]
url = "memory://"

[tools]
toolsets = ["web"]
"""


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with run_site() as running:
        yield running


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    (tmp_path / "toolwire.toml").write_text(CONFIG)
    target = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolwire", "serve", "--stdio"],
        env={
            "TOOLWIRE_CONFIG": str(tmp_path / "toolwire.toml"),
            "TOOLWIRE_FETCH_USER_AGENT": "mcp-fetch-test/2.0",
            "PATH": "/usr/bin:/bin",
        },
        cwd=str(tmp_path),
    )
    with anyio.fail_after(CALL_TIMEOUT_S):
        async with Client(target, read_timeout_seconds=CALL_TIMEOUT_S) as connected:
            yield connected


def _text(result: mt.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mt.TextContent))


async def test_fetch_url_is_listed_and_returns_the_page_as_markdown(
    client: Client, site: Site
) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert "fetch_url" in tools
    assert tools["fetch_url"].annotations is not None
    assert tools["fetch_url"].annotations.read_only_hint is True
    result = await client.call_tool("fetch_url", {"url": site.url("127.0.0.1", "/article.html")})
    assert result.is_error is False
    text = _text(result)
    for paragraph in ARTICLE_PARAGRAPHS:
        assert paragraph in text
    assert NAV_WORDS not in text
    assert result.structured_content is not None
    assert result.structured_content["kind"] == "html"
    agents = {agent for path, _, agent in site.seen if path == "/article.html"}
    assert "mcp-fetch-test/2.0" in agents


async def test_an_image_arrives_as_mcp_image_content(client: Client, site: Site) -> None:
    result = await client.call_tool("fetch_url", {"url": site.url("127.0.0.1", "/pixel.png")})
    assert result.is_error is False
    images = [block for block in result.content if isinstance(block, mt.ImageContent)]
    assert len(images) == 1
    assert images[0].mime_type == "image/png"
    assert base64.b64decode(images[0].data) == png_bytes()
    assert "Image: image/png, 73 bytes, 3x2 px" in _text(result)
