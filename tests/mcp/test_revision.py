"""The 2026-07-28 revision on `toolwire serve`'s server: cache hints on ``tools/list`` and
``server/discover``, discovery, ``listChanged`` and its notifications, on both protocol
generations, with the SDK's client over real streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.subscriptions import ToolsListChanged
from mcp_helpers import SDK_SERVER, WAIT_S, stdio_config
from revision_serving import sdk_client, served

from toolwire import ToolContext, ToolRegistry, define_tool, ok
from toolwire.errors import ConfigurationError
from toolwire.mcp import McpProvider, ServeOptions
from toolwire.mcp.client._bridge import bridge_into
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.server_auth import open_server_auth
from toolwire.mcp.server.auth.settings import AuthSettings
from toolwire.mcp.server.auth.tokens import TokenStore
from toolwire.mcp.server.listing_features import listing_cache_hints
from toolwire.results import ToolResult
from toolwire.stores import create_kv_backend

pytestmark = pytest.mark.anyio


async def _echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(str(args.get("text", "")))


def _tool(name: str) -> Any:
    return define_tool(
        name=name,
        description=f"The {name} tool.",
        schema={"type": "object", "properties": {"text": {"type": "string"}}},
        execute=_echo,
    )


def _registry(*names: str) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register_all([_tool(name) for name in names])
    return registry


def _names(listed: mt.ListToolsResult) -> set[str]:
    return {tool.name for tool in listed.tools}


async def test_the_2026_listing_carries_a_public_cache_hint_without_auth() -> None:
    options = ServeOptions(tools_list_ttl_s=12.5)
    async with served(_registry("echo"), options) as url, sdk_client(url, "auto") as client:
        listed = await client.list_tools()
    assert (listed.ttl_ms, listed.cache_scope) == (12_500, "public")


async def test_discovery_advertises_list_changed_and_is_cached_like_the_listing() -> None:
    options = ServeOptions(tools_list_ttl_s=3)
    async with served(_registry("echo"), options) as url, sdk_client(url, "auto") as client:
        found = client.session.discover_result
        assert client.protocol_version == "2026-07-28"
    assert found is not None
    assert "2026-07-28" in found.supported_versions
    assert found.capabilities.tools is not None
    assert found.capabilities.tools.list_changed is True
    assert (found.ttl_ms, found.cache_scope) == (3_000, "public")


async def test_the_legacy_handshake_announces_list_changed() -> None:
    async with served(_registry("echo")) as url, sdk_client(url, "legacy") as client:
        capabilities = client.server_capabilities
        assert client.protocol_version != "2026-07-28"
    assert capabilities.tools is not None
    assert capabilities.tools.list_changed is True


async def test_with_authentication_the_listing_is_private_to_the_credential() -> None:
    async with create_kv_backend("memory://") as backend:
        auth = open_server_auth(AuthSettings(tokens=True, token_cache_s=0), backend)
        try:
            issued = await TokenStore(backend).create("reviewer", Grant.of(tools=["echo"]))
            token = issued.token
            async with served(_registry("echo"), ServeOptions(auth=auth)) as url:
                http = create_mcp_http_client(headers={"authorization": f"Bearer {token}"})
                transport = streamable_http_client(url, http_client=http)
                async with Client(transport, mode="auto", cache=None) as client:
                    listed = await client.list_tools()
                    found = client.session.discover_result
        finally:
            await auth.aclose()
    assert listed.cache_scope == "private"
    assert found is not None
    assert found.cache_scope == "private"


async def test_a_2026_listener_hears_of_a_new_tool_and_its_cached_listing_is_refreshed() -> None:
    registry = _registry("echo")
    async with served(registry) as url, sdk_client(url, "auto") as client:
        assert _names(await client.list_tools()) == {"echo"}  # now cached for 60 s
        async with client.listen(tools_list_changed=True) as subscription:
            registry.register(_tool("added"))
            with anyio.fail_after(WAIT_S):
                event = await subscription.__anext__()
            assert isinstance(event, ToolsListChanged)
            assert _names(await client.list_tools()) == {"echo", "added"}
            registry.unregister("echo")
            with anyio.fail_after(WAIT_S):
                await subscription.__anext__()
            assert _names(await client.list_tools()) == {"added"}


async def test_a_legacy_session_that_listed_the_tools_is_notified_of_changes() -> None:
    registry = _registry("echo")
    heard = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification):
            heard.set()

    async with (
        served(registry) as url,
        sdk_client(url, "legacy", message_handler=on_message) as client,
    ):
        assert _names(await client.list_tools()) == {"echo"}
        registry.register(_tool("added"))
        with anyio.fail_after(WAIT_S):
            await heard.wait()
        assert _names(await client.list_tools()) == {"echo", "added"}


async def test_a_bridged_server_connecting_and_leaving_is_announced(tmp_path: Path) -> None:
    """A real MCP server bridged in (`bridge_into`, as ``toolwire serve`` does) adds its
    tools to the served listing, and stopping the bridge removes them: each is a notice."""
    registry = _registry("echo")
    config = stdio_config("sdk", SDK_SERVER, tmp_path)
    async with (
        served(registry) as url,
        sdk_client(url, "auto") as client,
        client.listen(tools_list_changed=True) as subscription,
    ):
        assert _names(await client.list_tools()) == {"echo"}
        async with McpProvider(config).running() as provider:
            await provider.wait_connected(WAIT_S)
            stop = bridge_into(registry, provider)
            with anyio.fail_after(WAIT_S):
                assert isinstance(await subscription.__anext__(), ToolsListChanged)
            assert "mcp__sdk__add" in _names(await client.list_tools())
            stop()
            with anyio.fail_after(WAIT_S):
                assert isinstance(await subscription.__anext__(), ToolsListChanged)
            assert _names(await client.list_tools()) == {"echo"}


def test_cache_hints_refuse_a_negative_ttl_and_scope_by_auth() -> None:
    with pytest.raises(ConfigurationError, match=">= 0"):
        listing_cache_hints(-1, authenticated=False)
    hints = listing_cache_hints(0.25, authenticated=True)
    assert hints["tools/list"].ttl_ms == 250
    assert hints["server/discover"].scope == "private"
