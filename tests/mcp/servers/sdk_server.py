"""An MCP server written with the SDK's `MCPServer`, for the client tests.

``python sdk_server.py stdio|http``. Aborted calls write ``$TOOLWIRE_TEST_MARKERS/<tag>``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import TextContent, ToolAnnotations
from pydantic import BaseModel

MARKERS = Path(os.environ.get("TOOLWIRE_TEST_MARKERS", "."))
PNG_BYTES = b"\x89PNG\r\n\x1a\nfakeimagedata"

server = MCPServer("sdk-test")


class Point(BaseModel):
    """A point."""

    x: int
    y: int


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
def describe(point: Point) -> dict[str, Any]:
    """Describe a point (its schema has $defs)."""
    return {"x": point.x, "y": point.y, "norm2": point.x**2 + point.y**2}


@server.tool()
def picture() -> Image:
    """A tiny picture."""
    return Image(data=PNG_BYTES, format="png")


@server.tool()
def boom() -> str:
    """Always fails."""
    raise ToolError("the reactor is offline")


@server.tool(structured_output=False)
def nothing() -> list[TextContent]:
    """Returns no content at all."""
    return []


@server.tool()
async def slow(seconds: float, tag: str = "slow") -> str:
    """Sleep, recording a cancellation."""
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            await anyio.Path(MARKERS / tag).write_text("cancelled")
        raise
    return "slept"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add a tool named ``extra`` and announce the change."""
    server.add_tool(lambda: "extra!", name="extra", description="Added at run time.")
    await ctx.notify_tools_changed()
    with contextlib.suppress(Exception):  # 2026-07-28 links have no standing channel for it
        await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def crash() -> str:
    """Exit the process."""
    os._exit(3)


def main() -> None:
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        server.run("stdio")
    else:
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        print(f"READY http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
        server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
