"""Which HTTP requests the fast path answers: the JSON body parsed once, the envelope checked.

`parse_lean_request` returns a `LeanRequest` only for a request the fast path answers exactly
as the SDK would; anything else (another method, a batch, a progress token, a task, an
approval answer, a pagination cursor, an envelope the SDK would refuse) is ``None`` and goes
to the SDK, which gives its own answer or error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.shared.inbound import (
    MCP_PARAM_HEADER_PREFIX,
    MCP_PROTOCOL_VERSION_HEADER,
    InboundModernRoute,
    classify_inbound_request,
)

from toolwire.mcp.revision import DEFAULT_NEGOTIATED, is_handshake, is_stateless
from toolwire.mcp.server.wire_json import loads

__all__ = ["SESSION_HEADER", "LeanRequest", "parse_lean_request"]

SESSION_HEADER = "mcp-session-id"
_METHODS = ("tools/call", "tools/list")
_CALL_KEYS_LEFT_TO_SDK = ("task", "inputResponses", "requestState")
_PARAM_PREFIX = MCP_PARAM_HEADER_PREFIX.lower()
_VERSION_HEADER = MCP_PROTOCOL_VERSION_HEADER.lower()


@dataclass(frozen=True, slots=True)
class LeanRequest:
    """One request the fast path answers.

    Attributes:
        request_id: The JSON-RPC id, echoed in the answer.
        method: ``tools/call`` or ``tools/list``.
        name: The tool called (``""`` for ``tools/list``).
        arguments: The call's arguments (empty for ``tools/list``).
        session: The ``Mcp-Session-Id`` of a handshake-era request; ``None`` on 2026-07-28.
        protocol_version: The request's protocol revision (a session's: its
            ``MCP-Protocol-Version`` header, or the oldest the SDK assumes without one).
        meta: The request's ``params._meta`` (``None`` when it has none).
    """

    request_id: int | str
    method: str
    name: str
    arguments: dict[str, Any]
    session: str | None
    protocol_version: str = DEFAULT_NEGOTIATED
    meta: dict[str, Any] | None = None


def parse_lean_request(body: bytes, headers: Mapping[str, str]) -> LeanRequest | None:
    """The request in ``body`` if the fast path answers it, else ``None``.

    Args:
        body: The raw POST body.
        headers: The request's headers, names lower-case.
    """
    try:
        message = loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    request_id, method = message.get("id"), message.get("method")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    if method not in _METHODS or not _envelope_ok(message, headers):
        return None
    params = message.get("params")
    params = {} if params is None else params
    if not isinstance(params, dict):
        return None
    session = headers.get(SESSION_HEADER)
    version = headers.get(_VERSION_HEADER) or DEFAULT_NEGOTIATED
    meta = params.get("_meta")
    meta = meta if isinstance(meta, dict) else None
    if method == "tools/list":  # a session's list goes through the SDK's middleware
        plain = session is None and "cursor" not in params
        return LeanRequest(request_id, method, "", {}, session, version, meta) if plain else None
    return _call(request_id, params, session, version, meta)


def _envelope_ok(message: dict[str, Any], headers: Mapping[str, str]) -> bool:
    """A handshake-era request in a session, or a 2026-07-28 one the SDK's ladder accepts."""
    version = headers.get(_VERSION_HEADER)
    if SESSION_HEADER in headers:
        return is_handshake(version)
    if not is_stateless(version):
        return False
    if any(name.startswith(_PARAM_PREFIX) for name in headers):
        return False  # x-mcp-header parameters: the SDK checks them
    route = classify_inbound_request(message, headers=headers)
    return isinstance(route, InboundModernRoute)


def _call(
    request_id: int | str,
    params: dict[str, Any],
    session: str | None,
    version: str,
    meta: dict[str, Any] | None,
) -> LeanRequest | None:
    name, arguments = params.get("name"), params.get("arguments")
    arguments = {} if arguments is None else arguments
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return None
    if any(key in params for key in _CALL_KEYS_LEFT_TO_SDK):
        return None
    if meta is not None and meta.get("progressToken") is not None:
        return None  # progress: the SDK opens the SSE stream
    return LeanRequest(request_id, "tools/call", name, arguments, session, version, meta)
