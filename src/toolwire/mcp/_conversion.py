"""Translations between MCP wire shapes and toolwire values.

- **schemas**: an MCP ``inputSchema`` becomes a toolwire schema with draft-07 ``definitions``
  renamed to ``$defs`` (and ``#/definitions/`` references rewritten), on a deep copy: the
  server's dict is never mutated. Property *names* that happen to be ``definitions`` are left
  alone.
- **results**: a ``CallToolResult`` becomes a `ToolResult` (text joined, ``structuredContent``
  appended as JSON, images and other binary blocks summarised, empty → ``(no output)``,
  ``isError`` → ``execution_failed``).
- **annotations**: `toolwire.tools.ToolAnnotations` ⇄ MCP tool annotations (hints).
- **names**: ``mcp__<server>__<tool>``, with the server name checked and the tool name made
  safe for every model API.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import mcp_types as mt

from toolwire.mcp._settings import MCP_TOOL_PREFIX, check_server_name
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tools import TOOL_NAME_PATTERN, ToolAnnotations

__all__ = [
    "MCP_TOOL_PREFIX",
    "NO_OUTPUT",
    "STRUCTURED_HEADER",
    "annotations_from_mcp",
    "annotations_to_mcp",
    "check_server_name",
    "error_from_mcp",
    "local_names",
    "local_tool_name",
    "result_from_mcp",
    "rewrite_definitions",
]

NO_OUTPUT = "(no output)"
"""What an empty successful MCP result reads as."""
STRUCTURED_HEADER = "\n\n--- Structured Data ---\n"
"""Separates a result's text from its ``structuredContent`` JSON."""

_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

logger = logging.getLogger("toolwire.mcp")


def local_tool_name(server: str, remote: str) -> str:
    """``mcp__<server>__<remote>``, made valid for every model API.

    Characters outside ``[A-Za-z0-9_-]`` become ``_``; a name over 64 characters is cut and
    given a short hash suffix so two long names never collide.
    """
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", remote) or "_"
    name = f"{MCP_TOOL_PREFIX}{server}__{safe}"
    if len(name) <= 64 and TOOL_NAME_PATTERN.fullmatch(name):
        return name
    digest = hashlib.sha256(remote.encode("utf-8")).hexdigest()[:8]
    return f"{name[: 64 - 9]}_{digest}"


def rewrite_definitions(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``schema`` with ``definitions`` → ``$defs`` and their ``$ref``s rewritten.

    When a schema object has both, entries of ``$defs`` win over same-named ``definitions``.
    Keys inside ``properties`` (and other name → schema maps) are names, not keywords, and are
    never renamed.
    """
    copied = _rewrite(schema, in_name_map=False)
    return copied if isinstance(copied, dict) else {}


def _rewrite(node: Any, *, in_name_map: bool) -> Any:
    if isinstance(node, Mapping):
        out: dict[str, Any] = {}
        moved: dict[str, Any] | None = None
        for key, value in node.items():
            if in_name_map:
                out[key] = _rewrite(value, in_name_map=False)
            elif key == "definitions" and isinstance(value, Mapping):
                moved = _rewrite(value, in_name_map=True)
            elif key == "$ref" and isinstance(value, str):
                out[key] = _rewrite_ref(value)
            else:
                out[key] = _rewrite(value, in_name_map=key in _SCHEMA_MAPS)
        if moved is not None:
            existing = out.get("$defs")
            out["$defs"] = {**moved, **existing} if isinstance(existing, dict) else moved
        return out
    if isinstance(node, list):
        return [_rewrite(item, in_name_map=False) for item in node]
    return node


def _rewrite_ref(ref: str) -> str:
    if ref.startswith("#/definitions/"):
        return "#/$defs/" + ref[len("#/definitions/") :]
    return ref


def annotations_from_mcp(
    annotations: mt.ToolAnnotations | None, title: str | None = None
) -> ToolAnnotations | None:
    """toolwire annotations from an MCP tool's hints (``None`` when there are none)."""
    if annotations is None and title is None:
        return None
    if annotations is None:
        return ToolAnnotations(title=title)
    return ToolAnnotations(
        title=annotations.title or title,
        read_only=annotations.read_only_hint,
        destructive=annotations.destructive_hint,
        idempotent=annotations.idempotent_hint,
        open_world=annotations.open_world_hint,
    )


def annotations_to_mcp(annotations: ToolAnnotations | None) -> mt.ToolAnnotations | None:
    """MCP hints from toolwire annotations (``None`` when there are none)."""
    if annotations is None:
        return None
    return mt.ToolAnnotations(
        title=annotations.title,
        read_only_hint=annotations.read_only,
        destructive_hint=annotations.destructive,
        idempotent_hint=annotations.idempotent,
        open_world_hint=annotations.open_world,
    )


def result_from_mcp(result: mt.CallToolResult) -> ToolResult:
    """The `ToolResult` a ``tools/call`` answer stands for.

    Text blocks are joined with newlines; images and audio become ``[Image: <mime>, <n>
    bytes]``; embedded resources give their text (or a summary of their blob); resource links
    their URI. ``structuredContent`` is appended as indented JSON under
    `STRUCTURED_HEADER` — unless it only repeats the text (the text is its JSON, which SDK
    servers send for every structured result, or it is ``{"result": <the text>}``), which
    would double the tokens — and is kept as
    ``Ok.structured`` when it is an object. ``isError`` gives ``execution_failed`` with the
    server's text.
    """
    text = "\n".join(part for part in (_block_text(b) for b in result.content) if part)
    structured = result.structured_content
    if result.is_error:
        return Err(text or "Tool returned an error", ErrorCode.EXECUTION_FAILED, cause="mcp_error")
    if structured is not None and not _text_is_json_of(text, structured):
        rendered = json.dumps(structured, indent=2, ensure_ascii=False, default=str)
        text = f"{text}{STRUCTURED_HEADER}{rendered}" if text else rendered
    return Ok(
        text or NO_OUTPUT,
        structured=structured if isinstance(structured, dict) else None,
    )


def _text_is_json_of(text: str, structured: Any) -> bool:
    """Whether ``structured`` only repeats ``text``: the text is its JSON, or it is the SDK's
    ``{"result": <the text>}`` wrapping of a tool that returned a plain value."""
    if not text:
        return False
    if isinstance(structured, dict) and len(structured) == 1:
        (only,) = structured.values()
        if only == text or (not isinstance(only, str) and _text_is_json_of(text, only)):
            return True
    try:
        return bool(json.loads(text) == structured)
    except ValueError:
        return False


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        label = "Image" if kind == "image" else "Audio"
        return (
            f"[{label}: {block.mime_type or f'{kind}/unknown'}, {_decoded_size(block.data)} bytes]"
        )
    if kind == "resource":
        resource = block.resource
        if getattr(resource, "text", None) is not None:
            return str(resource.text)
        mime = getattr(resource, "mime_type", None) or "application/octet-stream"
        size = _decoded_size(getattr(resource, "blob", ""))
        return f"[Resource: {resource.uri}, {mime}, {size} bytes]"
    if kind == "resource_link":
        return f"[Resource link: {block.uri}]"
    return f"[Unsupported content: {kind}]"


def _decoded_size(data: str) -> int:
    """Bytes a base64 payload decodes to (its length when it is not valid base64)."""
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return len(data)


def error_from_mcp(server: str, code: int, message: str, timeout_s: float) -> Err:
    """The result for an MCP error answered to a ``tools/call``.

    Every one is ``execution_failed``: a connection that closed under the call (cause
    ``mcp_connection_lost``: the call may have run, so it is not ``not_available``, which
    says it did not), a request timeout, any other protocol error.
    """
    if code == mt.CONNECTION_CLOSED:
        return Err(
            f"MCP server '{server}': the connection closed during the call; it may or may "
            "not have run",
            ErrorCode.EXECUTION_FAILED,
            cause="mcp_connection_lost",
        )
    if code == mt.REQUEST_TIMEOUT:
        return Err(
            f"MCP server '{server}' did not answer within {timeout_s:g} s",
            ErrorCode.EXECUTION_FAILED,
            cause="timeout",
        )
    return Err(
        f"MCP server '{server}' refused the call: {message} (code {code})",
        ErrorCode.EXECUTION_FAILED,
        cause="mcp_protocol_error",
    )


def local_names(
    server: str, remote: Sequence[mt.Tool], only: Collection[str] | None = None
) -> list[tuple[str, mt.Tool]]:
    """``(mcp__<server>__<name>, spec)`` for each remote tool kept: those in ``only`` (all when
    ``None``), skipping (with a warning) any whose local name an earlier one already took."""
    kept: list[tuple[str, mt.Tool]] = []
    seen: set[str] = set()
    for spec in remote:
        if only is not None and spec.name not in only:
            continue
        name = local_tool_name(server, spec.name)
        if name in seen:
            logger.warning(
                "MCP server %r: tool %r maps to %s, already taken; skipped", server, spec.name, name
            )
            continue
        seen.add(name)
        kept.append((name, spec))
    return kept
