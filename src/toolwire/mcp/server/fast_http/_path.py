"""`LeanPath`: ASGI middleware that answers plain ``tools/call`` and ``tools/list`` inline.

It sits inside the bearer guard (so authentication and per-credential grants still apply) and
in front of the hang-up watcher and the SDK's streamable HTTP app; `LeanFront` puts that chain
straight under uvicorn for ``POST /mcp``. For a request `parse_lean_request` accepts, with the
same ``Host``/``Origin``/``Content-Type``/``Accept`` checks, body size limit and session rules
as the SDK, it runs the call in the request's own task as the SDK handler does
(`toolwire.mcp.server.tool_call.ToolCalls`) and answers one JSON body (which MCP allows whenever the
client accepts JSON), in the envelope the SDK's runner gives (cache hints on ``tools/list``,
``resultType`` and the ``serverInfo`` stamp on 2026-07-28). No task group, no SSE stream, no
second validation. The call's abort signal comes from the hang-up watcher
(`toolwire.mcp.server.hangups.HangupWatcher.watched_call`: the server stopping aborts it) and fires
when the client hangs up: once the call waits on anything, one pending ``receive`` watches for
the disconnect (a call that finishes without waiting, in the loop turn it started, has nothing
to abort), and when a handshake-era client sends ``notifications/cancelled`` for it: the SDK
never saw the call, so the path keeps its running calls by session and request id, fires the
named one's abort, and hands the notification on for the SDK's ``202``. A handshake-era
answer's head goes out before the call runs, as the SDK's does.

A tool that talks to the client (`toolwire.mcp.server.peer.current_peer`) sees the same peer as on
the SDK path whenever that peer could not reach the client anyway (see
`toolwire.mcp.server.fast_http.peer`); a request whose client could be reached (it declared
sampling, elicitation or roots, or opted into log messages, and every handshake-era session, whose
logs flow by default) goes to the SDK when the tool is one that has asked for its peer before, and
the lean path learns such tools the first time they ask: that first call is answered by the SDK path
too, before it runs.

A ``tools/list`` lists what the session found with ``tool_search`` too
(`toolwire.mcp.server.session_tools`). Everything else is replayed unchanged to the SDK: other
methods, a session's ``tools/list`` (the server's middleware decorates it), a tool that may
need the user's approval, an unknown tool, ``tool_search`` and the deferred tools (checked
against the session's found tools, and a handshake-era client told its list changed), a tool
whose schema declares ``x-mcp-header`` parameters, a session that is not open or is owned by
a credential, a client that accepts only SSE, a repeated header, an oversized body.

``TOOLWIRE_MCP_LEAN=0`` turns the path off (every request then goes to the SDK).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Final

from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import X_MCP_HEADER_KEY
from starlette.requests import Request

from toolwire.mcp.revision import STATELESS_REVISION
from toolwire.mcp.server.auth._principals import request_principal
from toolwire.mcp.server.auth.access import check_call, visible
from toolwire.mcp.server.auth.grants import request_grant
from toolwire.mcp.server.fast_http._asgi_io import (
    DisconnectWatch,
    answer_head,
    holding_session,
    read_body,
    replayed,
    request_headers,
    respond_error,
    send_body,
)
from toolwire.mcp.server.fast_http._envelope import LeanRequest, parse_lean_request
from toolwire.mcp.server.fast_http.peer import PeerRoute
from toolwire.mcp.server.hangups import HangupWatcher
from toolwire.mcp.server.listing_features import listing_fields
from toolwire.mcp.server.session_tools import PER_SESSION_CACHE, SessionTools
from toolwire.mcp.server.tool_call import CallRequest
from toolwire.mcp.server.wire_json import dumps, loads

if TYPE_CHECKING:
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from starlette.types import Receive, Scope, Send

    from toolwire.context import AbortSignal
    from toolwire.mcp.server._server import McpServer
    from toolwire.mcp.server.sessions import BoundedSessionManager
    from toolwire.tools import Tool

__all__ = ["LEAN_ENV", "LeanPath", "lean_enabled"]

LEAN_ENV = "TOOLWIRE_MCP_LEAN"
"""Set to ``0`` to serve every request through the SDK."""
_CHECKED_HEADERS: Final = ("accept", "content-type", "host", "origin")
"""What the SDK's ``Accept`` check and DNS-rebinding protection read."""
_CHECKED_KEPT: Final = 256


def lean_enabled() -> bool:
    """Whether the fast path is on (it is unless ``TOOLWIRE_MCP_LEAN=0``)."""
    return os.environ.get(LEAN_ENV, "1").strip() not in ("0", "false", "no", "off")


class _Headers:
    """What the SDK's header checks read from a Starlette ``Request``: ``.headers``."""

    __slots__ = ("headers",)

    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


class LeanPath:
    """The fast path in front of ``app`` (see the module doc).

    Args:
        app: The hang-up watcher in front of the SDK's streamable HTTP app (what every other
            request reaches; it also hands out the fast path's call signals).
        server: What `toolwire.mcp.server.build_mcp_server` built: the SDK server (its cache
            hints and identity stamp), its ``tools/call`` and its tool definitions.
        sessions: The SDK's session manager (a handshake-era call is answered here only in
            an open session that no credential owns).
        security: The DNS-rebinding settings the SDK transport was given.
        max_body_bytes: The largest request body answered here (the SDK refuses larger ones
            with 413; such a request is handed to it).
    """

    def __init__(
        self,
        app: HangupWatcher,
        server: McpServer,
        sessions: BoundedSessionManager,
        security: TransportSecuritySettings | None,
        *,
        max_body_bytes: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
    ) -> None:
        self._app = app
        self._server = server.sdk
        self._as_mcp = server.as_mcp
        self._calls = server.calls
        self._view = SessionTools(self._calls.registry)
        self._sessions = sessions
        self._security = TransportSecurityMiddleware(security)
        self._max_body = max_body_bytes
        self._peers = PeerRoute()
        self._header_params: dict[str, tuple[Tool, bool]] = {}
        self._running: dict[tuple[str, bytes], AbortSignal] = {}  # handshake-era calls
        self._checked: dict[tuple[str | None, ...], tuple[bool, bool]] = {}
        # The 2026-07-28 result's constant tail: the serverInfo stamp is fixed per server.
        stamp = listing_fields(server.sdk, STATELESS_REVISION)["_meta"]
        self._modern_tail = dumps({"resultType": "complete", "_meta": stamp})[1:]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a plain ``tools/call``/``tools/list`` POST, or hand the request on."""
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        headers = request_headers(scope)
        body, pending, whole = await read_body(receive, self._max_body, headers)
        replay = replayed(pending, receive)
        if headers is None or not whole:
            await self._app(scope, replay, send)  # cut short, too big or a repeated header
            return
        if self._running and b"notifications/cancelled" in body:
            self._cancel(headers, body)  # then the SDK answers the notification
        lean = await self._admit(headers, body)
        transport = self._session(lean) if lean is not None else None
        if transport is not None and lean is not None and lean.session is not None:  # noqa: SIM102
            if not await self._sessions.still_open(lean.session):  # replicas: ended elsewhere
                transport = None
        if lean is None or (lean.session is not None and transport is None):
            await self._app(scope, replay, send)
            return
        if transport is None:  # stateless: no session to hold open
            answered = await self._answer(lean, Request(scope), receive, send)
        else:
            with holding_session(transport):
                answered = await self._answer(lean, Request(scope), receive, send)
        if not answered:
            await self._app(scope, replay, send)

    async def _admit(self, headers: dict[str, str], body: bytes) -> LeanRequest | None:
        lean = parse_lean_request(body, headers)
        if lean is None:
            return None
        key = tuple(headers.get(name) for name in _CHECKED_HEADERS)
        verdict = self._checked.get(key)
        if verdict is None:  # clients repeat their headers: each set is checked once
            view: Any = _Headers(headers)
            has_json, has_sse = check_accept_headers(view)
            refused = await self._security.validate_request(view, is_post=True) is not None
            verdict = (has_json and not refused, has_sse)
            if len(self._checked) >= _CHECKED_KEPT:
                self._checked.clear()
            self._checked[key] = verdict
        accepted, has_sse = verdict
        if not accepted or (lean.session is not None and not has_sse):
            return None  # SSE only, a bad Host/Origin/Content-Type: the SDK refuses it
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

    async def _answer(
        self, lean: LeanRequest, request: Request, receive: Receive, send: Send
    ) -> bool:
        """Answer ``lean``; ``False`` when the SDK must answer after all (nothing sent)."""
        calls = self._calls
        registry = calls.registry
        grant = request_grant(request)
        if lean.method == "tools/list":  # (a handshake-era list never comes here)
            principal = request_principal(request)
            session_id = calls.sessions.session_of_header(lean.session, principal)
            tools = []
            for shown in await self._view.tools(session_id, principal):  # with what it found
                if grant is None or visible(registry, grant, shown.name):
                    spec = self._as_mcp(shown)
                    tools.append(spec.model_dump(by_alias=True, mode="json", exclude_none=True))
            fields = listing_fields(self._server, lean.protocol_version)
            if "ttlMs" in fields and self._view.deferring:
                fields.update(PER_SESSION_CACHE)  # differs per session: never kept, never shared
            await self._send_result(send, lean, dumps({**fields, "tools": tools}))
            return True
        try:
            check_call(registry, grant, lean.name)
        except MCPError as refusal:
            await respond_error(send, lean, refusal.error.code, refusal.error.message)
            return True
        tool = calls.fast_path_tool(lean.name)  # unknown, approval, task, tool search: SDK's
        if tool is None or self._declares_headers(tool):
            return False  # ... and the Mcp-Param-* checks
        peer = self._peers.admit(tool, lean)
        if peer is None:
            return False  # a tool that talks to a client it could reach: the SDK's peer
        if lean.session is not None:  # as the SDK does: the answer's head before the call
            head = answer_head(lean.session)
            await send({"type": "http.response.start", "status": 200, "headers": head})
        with self._app.watched_call() as signal:
            watch = DisconnectWatch(receive, signal)
            running = None if lean.session is None else (lean.session, dumps(lean.request_id))
            if running is not None:
                self._running[running] = signal
            principal = request_principal(request)
            call = CallRequest(
                name=lean.name,
                arguments=lean.arguments,
                call_id=str(lean.request_id),
                session_id=calls.sessions.session_of_header(lean.session, principal),
                principal=principal,  # the credential's, as on the SDK path
            )
            try:
                with peer.bound():
                    result = await calls.call(call, signal)
            except BaseException:
                watch.stop()
                raise
            finally:
                if running is not None:
                    self._running.pop(running, None)
            watch.settle()
        result.pop("resultType", None)  # the 2026-07-28 tail carries it; older revisions drop it
        await self._send_result(send, lean, dumps(result))
        return True

    def _cancel(self, headers: dict[str, str], body: bytes) -> None:
        """Abort the running call a handshake-era ``notifications/cancelled`` names."""
        session = headers.get("mcp-session-id")
        if not session:
            return
        try:
            message = loads(body)
        except ValueError:
            return
        if not isinstance(message, dict) or message.get("method") != "notifications/cancelled":
            return
        params = message.get("params")
        if not isinstance(params, dict) or "requestId" not in params:
            return
        try:
            signal = self._running.get((session, dumps(params["requestId"])))
        except (TypeError, ValueError, UnicodeEncodeError):
            return  # an id no call could have
        if signal is not None:
            reason = params.get("reason")
            detail = f": {reason}" if isinstance(reason, str) and reason else ""
            signal.abort(f"cancelled by the MCP client{detail}")

    def _declares_headers(self, tool: Tool) -> bool:
        """Whether ``tool``'s schema declares ``x-mcp-header`` parameters (the SDK checks
        their ``Mcp-Param-*`` headers against the arguments)."""
        known = self._header_params.get(tool.name)
        if known is None or known[0] is not tool:
            known = (tool, f'"{X_MCP_HEADER_KEY}"' in json.dumps(tool.schema, default=str))
            self._header_params[tool.name] = known
        return known[1]

    async def _send_result(self, send: Send, lean: LeanRequest, result: bytes) -> None:
        """Send the encoded ``result`` object in the envelope the SDK's runner gives it:
        ``resultType`` and the ``serverInfo`` stamp on 2026-07-28 (a ``tools/list`` result
        carries them already), none of them on older revisions."""
        if lean.session is None and lean.method == "tools/call":
            result = result[:-1] + (b"," if len(result) > 2 else b"") + self._modern_tail
        head = b'{"jsonrpc":"2.0","id":' + dumps(lean.request_id) + b',"result":'
        await send_body(send, lean, 200, b"".join((head, result, b"}")))
