"""MCP both ways: `McpProvider` brings an MCP server's tools in, `serve_registry` serves ours.

`McpConnection` is the supervised connection under `McpProvider` (reconnects, keep-alive,
``list_changed``), usable on its own for the raw MCP listing and client. `ClientHandlers`
answers a bridged server's sampling, elicitation and roots requests; `current_peer` is the
client of the ``tools/call`` a served tool is running for.

Names load on first use, so reading a config file (which needs only `McpServerConfig`) does
not import the MCP SDK. See ``docs/mcp.md``.

Rooms: ``client/`` (servers' tools in), ``server/`` (a registry out), ``conversion.py`` (MCP shapes
↔ toolwire values), ``settings.py`` (server settings, without the SDK), ``read_streams.py``
(`ForwardingReadStream`), ``revision.py`` (the protocol revisions, named once), and
``task_extension.py`` (the 2026-07-28 Tasks extension, both sides).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.mcp.client.bridge import bridge_into
    from toolwire.mcp.client.connection import McpConnection
    from toolwire.mcp.client.handlers import ClientHandlers
    from toolwire.mcp.client.provider import McpProvider
    from toolwire.mcp.conversion import result_from_mcp, rewrite_definitions
    from toolwire.mcp.server.peer import McpPeer, current_peer
    from toolwire.mcp.server.server import (
        DEFAULT_HTTP_HOST,
        DEFAULT_HTTP_PORT,
        McpServer,
        ServeOptions,
        build_mcp_server,
        create_mcp_server,
    )
    from toolwire.mcp.server.serving import create_http_app, serve_http, serve_registry, serve_stdio
    from toolwire.mcp.settings import DEFAULT_MCP_RESULT_LIMIT_CHARS, McpServerConfig

_WHERE = {
    "ClientHandlers": "toolwire.mcp.client.handlers",
    "DEFAULT_HTTP_HOST": "toolwire.mcp.server.server",
    "DEFAULT_HTTP_PORT": "toolwire.mcp.server.server",
    "DEFAULT_MCP_RESULT_LIMIT_CHARS": "toolwire.mcp.settings",
    "McpConnection": "toolwire.mcp.client.connection",
    "McpPeer": "toolwire.mcp.server.peer",
    "McpProvider": "toolwire.mcp.client.provider",
    "McpServer": "toolwire.mcp.server.server",
    "McpServerConfig": "toolwire.mcp.settings",
    "ServeOptions": "toolwire.mcp.server.server",
    "bridge_into": "toolwire.mcp.client.bridge",
    "build_mcp_server": "toolwire.mcp.server.server",
    "current_peer": "toolwire.mcp.server.peer",
    "create_http_app": "toolwire.mcp.server.serving",
    "create_mcp_server": "toolwire.mcp.server.server",
    "result_from_mcp": "toolwire.mcp.conversion",
    "rewrite_definitions": "toolwire.mcp.conversion",
    "serve_http": "toolwire.mcp.server.serving",
    "serve_registry": "toolwire.mcp.server.serving",
    "serve_stdio": "toolwire.mcp.server.serving",
}

__all__ = [
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "DEFAULT_MCP_RESULT_LIMIT_CHARS",
    "ClientHandlers",
    "McpConnection",
    "McpPeer",
    "McpProvider",
    "McpServer",
    "McpServerConfig",
    "ServeOptions",
    "bridge_into",
    "build_mcp_server",
    "create_http_app",
    "create_mcp_server",
    "current_peer",
    "result_from_mcp",
    "rewrite_definitions",
    "serve_http",
    "serve_registry",
    "serve_stdio",
]


__getattr__, __dir__ = lazy_exports("toolwire.mcp", _WHERE, globals())
