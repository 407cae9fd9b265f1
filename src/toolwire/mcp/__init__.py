"""MCP both ways: `McpProvider` brings an MCP server's tools in, `serve_registry` serves ours.

See ``docs/mcp.md``.
"""

from __future__ import annotations

from toolwire.mcp.bridge import bridge_into
from toolwire.mcp.client import DEFAULT_MCP_RESULT_LIMIT_CHARS, McpProvider, McpServerConfig
from toolwire.mcp.conversion import result_from_mcp, rewrite_definitions
from toolwire.mcp.server import (
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    ServeOptions,
    create_http_app,
    create_mcp_server,
    serve_http,
    serve_registry,
    serve_stdio,
)

__all__ = [
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "DEFAULT_MCP_RESULT_LIMIT_CHARS",
    "McpProvider",
    "McpServerConfig",
    "ServeOptions",
    "bridge_into",
    "create_http_app",
    "create_mcp_server",
    "result_from_mcp",
    "rewrite_definitions",
    "serve_http",
    "serve_registry",
    "serve_stdio",
]
