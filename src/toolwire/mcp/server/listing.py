"""A registry's tools as ``tools/list`` entries, built as plain JSON without the MCP SDK.

`tool_entry` gives exactly what the SDK server's ``tools/list`` answers for one tool (the
``mcp_types.Tool`` that `toolwire.mcp.server._server` builds, dumped by alias without ``None``s):
name, title, description, ``inputSchema``, ``outputSchema``, every annotation hint set explicitly
(`toolwire.mcp.server.rich_results.explicit_hints`) and the icons. The lean stdio loop
(`toolwire.mcp.server.fast_stdio`) lists with it, so a client's first ``tools/list`` needs no SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.tools import Tool, ToolAnnotations

__all__ = ["DEFAULT_TOOLS_LIST_TTL_S", "ICON_KEYS", "PER_SESSION_CACHE", "hint_entry", "tool_entry"]

DEFAULT_TOOLS_LIST_TTL_S = 60.0
"""How long a client may keep a ``tools/list`` answer (it is told when the tools change)."""
PER_SESSION_CACHE: dict[str, Any] = {"ttlMs": 0, "cacheScope": "private"}
"""The 2026-07-28 cache hint of a listing that differs per session (a registry with deferred
tools lists what each session found, `toolwire.mcp.server.session_tools`): re-ask, never share."""
ICON_KEYS = ("src", "mimeType", "sizes", "theme")
"""The fields of an MCP icon; anything else in a tool's icon mapping is not sent."""


def tool_entry(tool: Tool) -> dict[str, Any]:
    """The ``tools/list`` entry of ``tool`` (the wire JSON the SDK would send)."""
    entry: dict[str, Any] = {"name": tool.name}
    title = tool.annotations.title if tool.annotations else None
    if title is not None:
        entry["title"] = title
    if tool.description is not None:
        entry["description"] = tool.description
    entry["inputSchema"] = dict(tool.schema)
    if tool.output_schema is not None:
        entry["outputSchema"] = dict(tool.output_schema)
    icons = [_icon(icon) for icon in tool.icons]
    if icons:
        entry["icons"] = icons
    entry["annotations"] = hint_entry(tool.annotations)
    return entry


def hint_entry(annotations: ToolAnnotations | None) -> dict[str, Any]:
    """The annotations with all four hints set, as `explicit_hints` makes them, in wire
    form."""
    read_only = bool(annotations.read_only) if annotations else False
    destructive = annotations.destructive if annotations else None
    idempotent = annotations.idempotent if annotations else None
    open_world = annotations.open_world if annotations else None
    hints: dict[str, Any] = {}
    if annotations is not None and annotations.title is not None:
        hints["title"] = annotations.title
    hints["readOnlyHint"] = read_only
    hints["destructiveHint"] = (not read_only) if destructive is None else destructive
    hints["idempotentHint"] = read_only if idempotent is None else idempotent
    hints["openWorldHint"] = True if open_world is None else open_world
    return hints


def _icon(icon: Mapping[str, Any]) -> dict[str, Any]:
    return {key: icon[key] for key in ICON_KEYS if icon.get(key) is not None}
