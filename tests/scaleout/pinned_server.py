"""A stdio MCP server with one tool, ``echo``, whose description is ``$PINNED_DESCRIPTION``:
bridged into every replica, so its definition is pinned on the shared store."""

from __future__ import annotations

import logging
import os

from mcp.server.mcpserver import MCPServer

logging.disable(logging.INFO)
server = MCPServer("pinned", log_level="WARNING")


@server.tool(description=os.environ.get("PINNED_DESCRIPTION", "Echo the text back."))
async def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    server.run("stdio")
