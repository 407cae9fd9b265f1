"""A tool that reaches its MCP client only through a helper looked up at run time, so nothing in its
code or module names the peer (`toolwire.mcp.server.fast_http.peer` learns it when it is used)."""

from __future__ import annotations

import importlib
from typing import Any

from toolwire import ToolContext, ToolResult, define_tool, ok
from toolwire.tools import Tool


async def _log_through_a_helper(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    module = importlib.import_module("toolwire.mcp.server.peer")
    client = getattr(module, "current_" + "peer")()
    if client is not None:
        await client.log("info", "through a helper")
    return ok("logged" if client is not None else "no client")


def indirect_logger() -> Tool:
    """The tool ``indirect_log``."""
    return define_tool(
        name="indirect_log",
        description="Log one line through the client, found at run time.",
        schema={"type": "object"},
        execute=_log_through_a_helper,
    )
