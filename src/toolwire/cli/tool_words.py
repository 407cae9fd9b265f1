"""A tool's annotations and capabilities as the words the CLI prints (``read-only,
idempotent``; ``network, fs_reach``), and the tools offered and withheld, without typer or rich.

The annotation words are the hints ``tools/list`` sends (`toolwire.mcp.server.listing.hint_entry`,
every hint set: a tool that says nothing is destructive and open-world, as MCP reads it), so
``toolwire tools``, the serve banner and a client agree. The tools offered are those ``tools/list``
sends (`toolwire.tools.Tool.currently_available`); the others are withheld, each with why
(`toolwire.availability.unavailable`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.availability import Unavailable, unavailable
from toolwire.mcp.server.listing import hint_entry

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry
    from toolwire.tools import Tool

__all__ = ["HINT_WORDS", "offered_and_withheld", "tool_annotations", "tool_capabilities"]

HINT_WORDS: tuple[tuple[str, str], ...] = (
    ("readOnlyHint", "read-only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
    ("openWorldHint", "open-world"),
)
"""Each ``tools/list`` hint and the word printed when it is true."""


def tool_annotations(tool: Tool) -> str:
    """``read-only, idempotent`` ...: the true hints of the tool's ``tools/list`` entry."""
    hints = hint_entry(tool.annotations)
    return ", ".join(word for key, word in HINT_WORDS if hints.get(key) is True)


def tool_capabilities(tool: Tool) -> str:
    """``network, fs_reach, process`` ... from a tool's declaration."""
    return ", ".join(tool.capabilities.declared)


def offered_and_withheld(
    registry: ToolRegistry,
) -> tuple[list[Tool], list[tuple[Tool, Unavailable]]]:
    """The tools ``tools/list`` sends now (the registry's `definitions`, as the server lists
    them), and the others with why they are withheld."""
    listed = {definition["name"] for definition in registry.definitions()}
    offered: list[Tool] = []
    withheld: list[tuple[Tool, Unavailable]] = []
    for tool in registry:
        if tool.name in listed:
            offered.append(tool)
        else:
            withheld.append((tool, unavailable(tool) or _NOT_LISTED))
    return offered, withheld


_NOT_LISTED = Unavailable(reason="not_listed", message="available, but not sent in tools/list")
