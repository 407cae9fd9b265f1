"""MCP both ways: `McpProvider` brings an MCP server's tools in, `serve_registry` serves ours.

`McpConnection` is the supervised connection under `McpProvider` (reconnects, keep-alive,
``list_changed``), usable on its own for the raw MCP listing and client. `ClientHandlers`
answers a bridged server's sampling, elicitation and roots requests; `current_peer` is the
client of the ``tools/call`` a served tool is running for.

Names load on first use, so reading a config file (which needs only `McpServerConfig`) does
not import the MCP SDK. See ``docs/mcp.md``.

Rooms: ``client/`` (servers' tools in), ``server/`` (a registry out), ``_conversion.py`` (MCP shapes
↔ toolwire values), ``_settings.py`` (server settings, without the SDK), ``_read_streams.py``
(`ForwardingReadStream`), ``revision.py`` (the protocol revisions, named once), and
``_task_extension.py`` (the 2026-07-28 Tasks extension, both sides).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.mcp._conversion import result_from_mcp, rewrite_definitions
    from toolwire.mcp._settings import DEFAULT_MCP_RESULT_LIMIT_CHARS, McpServerConfig
    from toolwire.mcp.client._bridge import bridge_into
    from toolwire.mcp.client._provider import McpProvider
    from toolwire.mcp.client.connection import McpConnection
    from toolwire.mcp.client.handlers import ClientHandlers
    from toolwire.mcp.server._server import (
        DEFAULT_HTTP_HOST,
        DEFAULT_HTTP_PORT,
        McpServer,
        ServeOptions,
        build_mcp_server,
        create_mcp_server,
    )
    from toolwire.mcp.server.peer import McpPeer, current_peer
    from toolwire.mcp.server.serving import create_http_app, serve_http, serve_registry, serve_stdio

_WHERE = {
    "ClientHandlers": "toolwire.mcp.client.handlers",
    "DEFAULT_HTTP_HOST": "toolwire.mcp.server._server",
    "DEFAULT_HTTP_PORT": "toolwire.mcp.server._server",
    "DEFAULT_MCP_RESULT_LIMIT_CHARS": "toolwire.mcp._settings",
    "McpConnection": "toolwire.mcp.client.connection",
    "McpPeer": "toolwire.mcp.server.peer",
    "McpProvider": "toolwire.mcp.client._provider",
    "McpServer": "toolwire.mcp.server._server",
    "McpServerConfig": "toolwire.mcp._settings",
    "ServeOptions": "toolwire.mcp.server._server",
    "bridge_into": "toolwire.mcp.client._bridge",
    "build_mcp_server": "toolwire.mcp.server._server",
    "current_peer": "toolwire.mcp.server.peer",
    "create_http_app": "toolwire.mcp.server.serving",
    "create_mcp_server": "toolwire.mcp.server._server",
    "result_from_mcp": "toolwire.mcp._conversion",
    "rewrite_definitions": "toolwire.mcp._conversion",
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
