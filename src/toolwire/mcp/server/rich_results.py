"""What a served tool's listing and results say beyond the bare text (the server side).

- **every annotation hint explicit** (`explicit_hints`): a client never has to guess what an
  absent hint means. What a tool leaves unknown takes the spec's cautious default — not
  read-only, destructive, not idempotent, open-world — except what its other hints imply: a
  read-only tool is neither destructive nor has additional effect when repeated.
- **structured results also as JSON text** (`structured_text_block`): a client that reads only
  ``content`` (the spec asks servers to serve those) gets the ``structuredContent`` as a text
  block of compact JSON after the presented text — unless the tool's text already is that JSON,
  the JSON would not fit the per-request budget (the structured data still carries it whole),
  or it carries media (``image``, ``audio``, ``resource(s)``), which arrive as their own blocks
  and would otherwise be repeated as base64 text.

Images, audio and embedded resources are `toolwire.mcp.server.media`'s and the server's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolwire.tools import ToolAnnotations

if TYPE_CHECKING:  # the SDK loads with explicit_hints (structured_text_block needs none)
    import mcp_types as mt

__all__ = ["MEDIA_KEYS", "explicit_hints", "structured_text_block"]

MEDIA_KEYS = ("image", "audio", "resource", "resources")
"""Keys of a structured result that the server sends as content blocks of their own."""


def explicit_hints(annotations: ToolAnnotations | None) -> mt.ToolAnnotations:
    """MCP annotations with all four hints set (see the module doc); the title when there is
    one."""
    import mcp_types as mt

    known = annotations or ToolAnnotations()
    read_only = bool(known.read_only)
    destructive = known.destructive
    if destructive is None:
        destructive = not read_only
    idempotent = known.idempotent
    if idempotent is None:
        idempotent = read_only
    return mt.ToolAnnotations(
        title=known.title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=True if known.open_world is None else known.open_world,
    )


def structured_text_block(
    value: str, structured: Mapping[str, Any], budget_chars: int
) -> dict[str, Any] | None:
    """The text block carrying ``structured`` as JSON, or ``None`` when the tool's text
    (``value``, before presenting) already is that JSON, the JSON is over ``budget_chars``, or
    ``structured`` carries media (see the module doc)."""
    if any(key in structured for key in MEDIA_KEYS):
        return None
    try:
        rendered = json.dumps(structured, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):  # a cycle: the structured content itself will not serialise
        return None
    if len(rendered) > budget_chars or _is_json_of(value, structured):
        return None
    return {"type": "text", "text": rendered}


def _is_json_of(text: str, structured: Mapping[str, Any]) -> bool:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return False
    try:
        return bool(json.loads(stripped) == structured)
    except ValueError:
        return False
