"""A tool's annotations and capabilities as the words the CLI prints (``read-only,
idempotent``; ``network, fs_reach``), without typer or rich."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolwire.tools import Tool

__all__ = ["tool_annotations", "tool_capabilities"]


def tool_annotations(tool: Tool) -> str:
    """``read-only, idempotent`` ... from a tool's annotations."""
    hints = tool.annotations
    if hints is None:
        return ""
    words = [
        ("read-only", hints.read_only),
        ("destructive", hints.destructive),
        ("idempotent", hints.idempotent),
        ("open-world", hints.open_world),
    ]
    return ", ".join(word for word, flag in words if flag)


def tool_capabilities(tool: Tool) -> str:
    """``network, fs_reach, process`` ... from a tool's declaration."""
    return ", ".join(tool.capabilities.declared)
