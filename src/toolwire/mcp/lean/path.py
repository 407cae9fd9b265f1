"""`LeanPath`: ASGI middleware that answers plain ``tools/call`` and ``tools/list`` inline.

It sits inside the hang-up watcher and the bearer guard (so authentication, per-credential
grants and hang-ups still apply) and in front of the SDK's streamable HTTP app. For a request
`parse_lean_request` accepts, with the same ``Host``/``Origin``/``Content-Type`` checks and the
same session rules as the SDK, it runs the call in the request's own task through the
registry and the server's presenter (`toolwire.mcp.server.CallPlumbing`) and answers one JSON
body (which MCP allows whenever the client accepts JSON), in the envelope the SDK's runner
gives (cache hints, ``resultType``, the ``serverInfo`` stamp on 2026-07-28). No task group, no
SSE stream, no second validation; one pending ``receive`` watches for the client hanging up
while the call runs (the watcher above then aborts the call). A handshake-era answer's head
goes out before the call runs, as the SDK's does.

Everything else is replayed unchanged to the SDK: other methods, a session's ``tools/list``
(the server's middleware decorates it), a tool that may need the user's approval, an unknown
tool, a session that is not open or is owned by a credential, a client that accepts only SSE.

``TOOLWIRE_MCP_LEAN=0`` turns the path off (every request then goes to the SDK).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS
from mcp_types import SERVER_INFO_META_KEY
from starlette.requests import Request

from toolwire.mcp.auth.access import check_call, visible
from toolwire.mcp.auth.grants import request_grant
from toolwire.mcp.hangups import call_abort_signal
from toolwire.mcp.lean.envelope import SESSION_HEADER, LeanRequest, parse_lean_request
from toolwire.mcp.server import call_plumbing

if TYPE_CHECKING:
    from mcp.server import Server
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from toolwire.context import ProgressEvent
    from toolwire.mcp.sessions import BoundedSessionManager

__all__ = ["LEAN_ENV", "LeanPath", "lean_enabled"]

LEAN_ENV = "TOOLWIRE_MCP_LEAN"
"""Set to ``0`` to serve every request through the SDK."""
_JSON = b"application/json"


def lean_enabled() -> bool:
    """Whether the fast path is on (it is unless ``TOOLWIRE_MCP_LEAN=0``)."""
    return os.environ.get(LEAN_ENV, "1").strip() not in ("0", "false", "no", "off")


class LeanPath:
    """The fast path in front of ``app`` (see the module doc).

    Args:
        app: The SDK's streamable HTTP app (what every other request reaches).
        server: The SDK server `create_mcp_server` built (its registry, presenter, session
            records and cache hints are shared).
        sessions: The SDK's session manager (a handshake-era call is answered here only in
            an open session that no credential owns).
        security: The DNS-rebinding settings the SDK transport was given.
    """

    def __init__(
        self,
        app: ASGIApp,
        server: Server[Any],
        sessions: BoundedSessionManager,
        security: TransportSecuritySettings | None,
    ) -> None:
        self._app = app
        self._server = server
        self._plumbing = call_plumbing(server)
        self._sessions = sessions
        self._security = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a plain ``tools/call``/``tools/list`` POST, or hand the request on."""
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        body, complete = await _read_body(receive)
        replay = _replay(body, receive)
        lean = await self._admit(scope, body) if complete else None
        transport = self._session(lean) if lean is not None else None
        if lean is None or (lean.session is not None and transport is None):
            await self._app(scope, replay, send)
            return
        watcher = asyncio.ensure_future(receive())  # a disconnect fires the hang-up
        try:
            with _holding(transport):
                answered = await self._answer(lean, Request(scope), send)
        finally:
            watcher.cancel()
        if not answered:
            await self._app(scope, replay, send)

    async def _admit(self, scope: Scope, body: bytes) -> LeanRequest | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        lean = parse_lean_request(body, headers)
        if lean is None:
            return None
        request = Request(scope)
        has_json, has_sse = check_accept_headers(request)
        if not has_json or (lean.session is not None and not has_sse):
            return None  # SSE only, or a handshake-era client the SDK refuses (406)
        if await self._security.validate_request(request, is_post=True) is not None:
            return None  # the SDK answers the refusal
        return lean

    def _session(self, lean: LeanRequest) -> StreamableHTTPServerTransport | None:
        """The open, unowned session a handshake-era request names (else the SDK answers)."""
        if lean.session is None:
            return None
        transport = self._sessions._server_instances.get(lean.session)
        if transport is None or transport.is_terminated:
            return None
        if self._sessions._session_owners.get(lean.session) is not None:
            return None  # the SDK checks who owns it
        return transport

    async def _answer(self, lean: LeanRequest, request: Request, send: Send) -> bool:
        """Answer ``lean``; ``False`` when the SDK must answer after all (nothing sent)."""
        registry = self._plumbing.registry
        grant = request_grant(request)
        if lean.method == "tools/list":  # (a handshake-era list never comes here)
            tools = []
            for definition in registry.definitions():
                tool = registry.get(definition["name"])
                if tool is not None and (grant is None or visible(registry, grant, tool.name)):
                    spec = self._plumbing.as_mcp(tool)
                    tools.append(spec.model_dump(by_alias=True, mode="json", exclude_none=True))
            await self._respond(send, lean, {"tools": tools})
            return True
        try:
            check_call(registry, grant, lean.name)
        except MCPError as refusal:
            await _respond_error(send, lean, refusal.error.code, refusal.error.message)
            return True
        tool = registry.get(lean.name)
        if tool is None or tool.requires_approval is not False:
            return False  # the SDK's unknown-tool answer; the approval round trip
        if lean.session is not None:  # as the SDK does: the answer's head before the call
            head = _head(lean.session)
            await send({"type": "http.response.start", "status": 200, "headers": head})
        await self._respond(send, lean, await self._call(lean, request))
        return True

    async def _call(self, lean: LeanRequest, request: Request) -> dict[str, Any]:
        plumbing = self._plumbing
        session_id, mtimes = plumbing.session_mtimes(lean.session)
        with call_abort_signal(request) as signal:
            ctx = plumbing.base_ctx.derive(
                session_id=session_id,
                session_key=session_id,
                abort_signal=signal,
                emit=_drop,
                read_mtimes=mtimes,
            )
            outcome = await plumbing.registry.execute(
                lean.name, lean.arguments, ctx, call_id=str(lean.request_id)
            )
        return await plumbing.to_result(outcome, lean.arguments, _drop)

    async def _respond(self, send: Send, lean: LeanRequest, result: dict[str, Any]) -> None:
        """Send ``result`` in the envelope the SDK's runner gives it: the method's cache
        hints, ``resultType`` and the ``serverInfo`` stamp on 2026-07-28; none of them on older
        revisions."""
        if lean.session is not None:
            result.pop("resultType", None)
        else:
            hint = self._server.cache_hints.get(lean.method)
            if hint is not None:
                result = {"ttlMs": hint.ttl_ms, "cacheScope": hint.scope, **result}
            result.setdefault("resultType", "complete")
            result["_meta"] = {SERVER_INFO_META_KEY: self._server.server_info_stamp}
        await _send_json(
            send, lean, 200, {"jsonrpc": "2.0", "id": lean.request_id, "result": result}
        )


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The request body, and whether it arrived whole (not cut by a disconnect)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read once, then the client's messages."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replayed


@contextmanager
def _holding(transport: StreamableHTTPServerTransport | None) -> Iterator[None]:
    """Hold a session open while its call runs, as the SDK does for its own requests (its
    idle countdown is suspended and restarts when the last request completes)."""
    scope = transport.idle_scope if transport is not None else None
    timeout = transport._idle_timeout if transport is not None else None
    if transport is None or scope is None or timeout is None or scope.cancel_called:
        yield
        return
    transport._requests_in_flight += 1
    scope.deadline = math.inf
    try:
        yield
    finally:
        transport._requests_in_flight -= 1
        if not transport._requests_in_flight:
            scope.deadline = anyio.current_time() + timeout


async def _respond_error(send: Send, lean: LeanRequest, code: int, message: str) -> None:
    status = 200 if lean.session is not None else ERROR_CODE_HTTP_STATUS.get(code, 200)
    if lean.session is not None:
        await send({"type": "http.response.start", "status": 200, "headers": _head(lean.session)})
    error = {"code": code, "message": message}
    await _send_json(send, lean, status, {"jsonrpc": "2.0", "id": lean.request_id, "error": error})


async def _send_json(send: Send, lean: LeanRequest, status: int, payload: dict[str, Any]) -> None:
    """Send the answer (a handshake-era call's head is already sent: only its body)."""
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    if lean.session is None:
        headers = [(b"content-type", _JSON), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _head(session: str) -> list[tuple[bytes, bytes]]:
    """The head of a handshake-era answer, sent before the call runs so a client can hang up
    on it (closing the response aborts the call)."""
    return [(b"content-type", _JSON), (SESSION_HEADER.encode(), session.encode("latin-1"))]


def _drop(event: ProgressEvent) -> None:
    """Progress nobody asked for (a call that wants progress goes to the SDK)."""
