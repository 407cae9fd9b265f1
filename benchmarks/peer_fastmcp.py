"""FastMCP's adapter for the shared tool-execution benchmark (the harness has none of its own).

FastMCP (PrefectHQ, 4.x) is not a toolwire dependency: install it in the peers' environment.
Each call is ``FastMCP.call_tool(name, dict)`` in-process, with FastMCP's middleware chain, and
the text content blocks an MCP client would hand the model: FastMCP's cheapest path, no
transport. Run from the harness folder::

    python run.py --adapter-file fastmcp=/abs/path/benchmarks/peer_fastmcp.py:FastMCPDirect \\
        --adapters baseline,fastmcp
"""

from __future__ import annotations

import json
from typing import Any

from adapters import Adapter  # type: ignore[import-not-found]  # provided by the harness


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


class FastMCPDirect(Adapter):  # type: ignore[misc]
    """``FastMCP.call_tool`` in-process; batches are ``asyncio.gather`` over it."""

    name = "fastmcp"
    batch_path = "asyncio.gather over FastMCP.call_tool"

    async def register(self, spec: str, fns: list[Any]) -> bool:
        from fastmcp import FastMCP  # the peers' environment has it; toolwire's does not

        self.server = FastMCP("bench")
        for fn in fns:
            self.server.tool(fn)
        return True

    async def definitions(self) -> list[dict[str, Any]]:
        listed = await self.server.list_tools()
        return [t.to_mcp_tool().model_dump(by_alias=True, exclude_none=True) for t in listed]

    async def call(self, name: str, args_json: str) -> str:
        return _text(await self.server.call_tool(name, json.loads(args_json)))
