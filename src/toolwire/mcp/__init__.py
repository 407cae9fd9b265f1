"""MCP both ways: `McpProvider` brings an MCP server's tools in, `serve_registry` serves ours.

`McpConnection` is the supervised connection under `McpProvider` (reconnects, keep-alive,
``list_changed``), usable on its own for the raw MCP listing and client. `ClientHandlers`
answers a bridged server's sampling, elicitation and roots requests; `current_peer` is the
client of the ``tools/call`` a served tool is running for.

Names load on first use, so reading a config file (which needs only `McpServerConfig`) does
not import the MCP SDK. See ``docs/mcp.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.mcp.bridge import bridge_into
    from toolwire.mcp.client import McpProvider
    from toolwire.mcp.client_handlers import ClientHandlers
    from toolwire.mcp.connection import McpConnection
    from toolwire.mcp.conversion import result_from_mcp, rewrite_definitions
    from toolwire.mcp.peer import McpPeer, current_peer
    from toolwire.mcp.server import (
        DEFAULT_HTTP_HOST,
        DEFAULT_HTTP_PORT,
        McpServer,
        ServeOptions,
        build_mcp_server,
        create_mcp_server,
    )
    from toolwire.mcp.serving import create_http_app, serve_http, serve_registry, serve_stdio
    from toolwire.mcp.settings import DEFAULT_MCP_RESULT_LIMIT_CHARS, McpServerConfig

_WHERE = {
    "ClientHandlers": "client_handlers",
    "DEFAULT_HTTP_HOST": "server",
    "DEFAULT_HTTP_PORT": "server",
    "DEFAULT_MCP_RESULT_LIMIT_CHARS": "settings",
    "McpConnection": "connection",
    "McpPeer": "peer",
    "McpProvider": "client",
    "McpServer": "server",
    "McpServerConfig": "settings",
    "ServeOptions": "server",
    "bridge_into": "bridge",
    "build_mcp_server": "server",
    "current_peer": "peer",
    "create_http_app": "serving",
    "create_mcp_server": "server",
    "result_from_mcp": "conversion",
    "rewrite_definitions": "conversion",
    "serve_http": "serving",
    "serve_registry": "serving",
    "serve_stdio": "serving",
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


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'toolwire.mcp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"toolwire.mcp.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
