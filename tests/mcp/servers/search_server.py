"""A toolwire registry with a deferred tool, for the tool-search tests
(``python search_server.py [stdio|http PORT_FILE]``; ``TOOLWIRE_MCP_LEAN=0`` serves it through
the SDK from the start).

Tools: ``read_notes`` (always offered) and ``create_issue`` (deferred: found by
``tool_search``; with ``TEST_NOTHING_DEFERRED=1`` it is not, as a plain server to bridge).
"""

from __future__ import annotations

import dataclasses
import os
import sys

import anyio

from toolwire import ToolOptions, ToolRegistry, tool
from toolwire.mcp import serve_registry


@tool(options=ToolOptions(defer_loading=True))
async def create_issue(title: str) -> str:
    """Create a new issue in a GitHub repository.

    Args:
        title: Issue title.
    """
    return f"created {title!r}"


@tool
async def read_notes() -> str:
    """Read the user's notes."""
    return "buy milk"


def build_registry() -> ToolRegistry:
    """The served tools."""
    registry = ToolRegistry()
    deferred = not os.environ.get("TEST_NOTHING_DEFERRED")
    registry.register_all([dataclasses.replace(create_issue, defer_loading=deferred), read_notes])
    return registry


def main() -> None:
    registry = build_registry()
    transport = "http" if sys.argv[1:2] == ["http"] else "stdio"
    anyio.run(lambda: serve_registry(registry, transport=transport))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
