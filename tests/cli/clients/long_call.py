"""An MCP client that starts a long ``terminal`` call and waits (the tests kill it).

``python long_call.py MODE TARGET``: MODE is a ``Client`` mode (``legacy``, ``auto``,
``2026-07-28``); TARGET is the server's URL, or a project directory to launch
``toolwire serve --stdio`` in. The command writes its pid to ``child.pid`` in the server's
working directory, then sleeps for five minutes.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

COMMAND = "echo $$ > child.pid; sleep 300"


async def main(mode: Any, target: str) -> None:
    server: Any = target
    if not target.startswith("http"):
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "toolwire", "serve", "--stdio"], cwd=target
        )
    async with Client(server, mode=mode, read_timeout_seconds=600) as client:
        await client.call_tool("terminal", {"command": COMMAND, "timeout_s": 600})


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
