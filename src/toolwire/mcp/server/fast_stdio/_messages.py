"""Which stdio messages the lean loop answers itself, read from one JSON line.

`read_message` parses a line into a `Message` (``None``: not a single JSON-RPC 2.0 request
or notification, which the SDK answers). The checks here accept only what the SDK accepts
and answers the same way: `handshake_params` (a well-formed ``initialize``), `modern_meta`
(a complete 2026-07-28 envelope and nothing else in ``_meta``) and `plain_call` (a
``tools/call`` with no progress token, task, approval answer or request state). Anything in
doubt is left to the SDK, which gives its own answer or error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from toolwire.mcp.revision import STATELESS_REVISION, negotiate
from toolwire.mcp.server.json_depth import too_deep

__all__ = [
    "PROTOCOL_VERSION_KEY",
    "Message",
    "handshake_params",
    "has_modern_key",
    "modern_meta",
    "plain_call",
    "read_message",
]

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
_CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
_ENVELOPE_KEYS = frozenset({PROTOCOL_VERSION_KEY, _CAPABILITIES_KEY, _CLIENT_INFO_KEY})
_INITIALIZE_KEYS = frozenset({"protocolVersion", "capabilities", "clientInfo"})
_REACHING = ("sampling", "elicitation", "roots")


@dataclass(frozen=True, slots=True)
class Message:
    """One JSON-RPC request (``request_id`` set) or notification (``request_id`` ``None``).

    Attributes:
        method: The method.
        params: The params (``{}`` when absent).
        request_id: The id of a request; ``None`` for a notification.
    """

    method: str
    params: dict[str, Any]
    request_id: int | str | None


def read_message(line: str) -> Message | None:
    """The request or notification on ``line``, or ``None`` for anything else (a response,
    a batch, bad JSON, JSON nested deeper than the SDK reads, a wrong envelope, params that
    are not an object)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None  # the SDK drops a line it cannot parse, and serving goes on
    if too_deep(line, message):
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    method, params = message.get("method"), message.get("params")
    if not isinstance(method, str) or "result" in message or "error" in message:
        return None
    params = {} if params is None else params
    if not isinstance(params, dict):
        return None
    if "id" not in message:
        return Message(method, params, None)
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    return Message(method, params, request_id)


def handshake_params(params: dict[str, Any]) -> str | None:
    """The revision an ``initialize`` with ``params`` settles on, or ``None`` when the SDK
    should judge the request (a missing or odd field, a ``_meta``)."""
    if not set(params) <= _INITIALIZE_KEYS:
        return None
    version, capabilities, info = (
        params.get("protocolVersion"),
        params.get("capabilities"),
        params.get("clientInfo"),
    )
    if not isinstance(version, str) or not _capabilities_ok(capabilities):
        return None
    if not _client_info_ok(info):
        return None
    return negotiate(version)


def has_modern_key(params: dict[str, Any]) -> bool:
    """Whether ``params._meta`` names a protocol version (the 2026-07-28 envelope's mark)."""
    meta = params.get("_meta")
    return isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta


def modern_meta(params: dict[str, Any]) -> bool:
    """Whether ``params._meta`` is a complete 2026-07-28 envelope and holds nothing else
    (no progress token, no log level: those are the SDK's)."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or not set(meta) <= _ENVELOPE_KEYS:
        return False
    if meta.get(PROTOCOL_VERSION_KEY) != STATELESS_REVISION:
        return False
    if not _capabilities_ok(meta.get(_CAPABILITIES_KEY)):
        return False
    return _CLIENT_INFO_KEY not in meta or _client_info_ok(meta[_CLIENT_INFO_KEY])


def plain_call(params: dict[str, Any], *, modern: bool) -> tuple[str, dict[str, Any]] | None:
    """The tool name and arguments of a plain ``tools/call`` (see the module doc), else
    ``None``. A 2026-07-28 request whose client declares sampling, elicitation, roots (a tool
    could reach it through its peer) or an extension (Tasks) is the SDK's, as on the HTTP fast
    path."""
    allowed = {"name", "arguments", "_meta"} if modern else {"name", "arguments"}
    if not set(params) <= allowed:
        return None  # task, inputResponses, requestState, a legacy _meta (progress)
    meta = params.get("_meta")
    capabilities = meta.get(_CAPABILITIES_KEY) if isinstance(meta, dict) else None
    if modern and (not isinstance(capabilities, dict) or not _unreachable(capabilities)):
        return None
    name, arguments = params.get("name"), params.get("arguments")
    arguments = {} if arguments is None else arguments
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return None
    return name, arguments


def _unreachable(capabilities: dict[str, Any]) -> bool:
    """Whether a 2026-07-28 client declared nothing a tool could use through its peer
    (sampling, elicitation, roots) and no extension (Tasks: the call may become a task)."""
    return all(capabilities.get(name) is None for name in _REACHING) and (
        "extensions" not in capabilities
    )


def _capabilities_ok(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())


def _client_info_ok(value: object) -> bool:
    """A client name and version, and only text beside them (icons: the SDK checks them)."""
    if not isinstance(value, dict) or not {"name", "version"} <= set(value):
        return False
    return all(isinstance(v, str) for v in value.values())
