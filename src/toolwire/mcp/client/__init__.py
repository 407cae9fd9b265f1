"""Bringing an MCP server's tools in: `McpProvider` and what keeps it connected.

``_provider.py`` (`McpProvider`), ``connection.py`` and ``link.py`` (reconnecting links),
``_transports.py`` (stdio, streamable HTTP), ``handlers.py`` (what the server may ask the host),
``_bridge.py`` (a registry kept in step), ``pinning.py`` (definitions trusted as first seen),
``tasks.py`` (calling a tool that runs as a task).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.mcp.client._provider import (
        DEFAULT_MCP_RESULT_LIMIT_CHARS,
        McpProvider,
        McpServerConfig,
        ToolsListener,
    )

__all__ = [
    "DEFAULT_MCP_RESULT_LIMIT_CHARS",
    "McpProvider",
    "McpServerConfig",
    "ToolsListener",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_MCP_RESULT_LIMIT_CHARS": "toolwire.mcp.client._provider",
        "McpProvider": "toolwire.mcp.client._provider",
        "McpServerConfig": "toolwire.mcp.client._provider",
        "ToolsListener": "toolwire.mcp.client._provider",
    },
    globals(),
)
