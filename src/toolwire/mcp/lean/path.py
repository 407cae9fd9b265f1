"""`LeanPath`: ASGI middleware that answers plain ``tools/call`` and ``tools/list`` inline.

It sits inside the bearer guard (so authentication and per-credential grants still apply) and
in front of the hang-up watcher and the SDK's streamable HTTP app; `LeanFront` puts that chain
straight under uvicorn for ``POST /mcp``. For a request `parse_lean_request`
accepts, with the same ``Host``/``Origin``/``Content-Type``/``Accept`` checks, body size limit
and session rules as the SDK, it runs the call in the request's own task through the registry
and the server's presenter (`toolwire.mcp.server.CallPlumbing`) and answers one JSON body
(which MCP allows whenever the client accepts JSON), in the envelope the SDK's runner gives
(cache hints on ``tools/list``, ``resultType`` and the ``serverInfo`` stamp on 2026-07-28). No
task group, no SSE stream, no second validation. The call's abort signal comes from the hang-up
watcher (`toolwire.mcp.hangups.HangupWatcher.watched_call`: the server stopping aborts it) and
fires when the client hangs up: once the call waits on anything, one pending ``receive``
watches for the disconnect (a call that finishes without waiting, in the loop turn it started,
has nothing to abort). A handshake-era answer's head goes out before the call runs, as the
SDK's does.

A tool that talks to the client (`toolwire.mcp.peer.current_peer`) sees the same peer as on the
SDK path whenever that peer could not reach the client anyway (see `toolwire.mcp.lean.peer`);
a request whose client could be reached (it declared sampling, elicitation or roots, or opted
into log messages, and every handshake-era session, whose logs flow by default) goes to the SDK
when the tool is one that has asked for its peer before, and the lean path learns such tools
the first time they ask: that first call is answered by the SDK path too, before it runs.

Everything else is replayed unchanged to the SDK: other methods, a session's ``tools/list``
(the server's middleware decorates it), a tool that may need the user's approval, an unknown
tool, a tool whose schema declares ``x-mcp-header`` parameters, a session that is not open or
is owned by a credential, a client that accepts only SSE, a repeated header, an oversized body.

``TOOLWIRE_MCP_LEAN=0`` turns the path off (every request then goes to the SDK).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

import anyio
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS, X_MCP_HEADER_KEY
from mcp_types.version import LATEST_MODERN_VERSION
from starlette.requests import Request

from toolwire.mcp.auth.access import check_call, visible
from toolwire.mcp.auth.grants import request_grant
from toolwire.mcp.hangups import CLIENT_GONE, HangupWatcher
from toolwire.mcp.lean.envelope import SESSION_HEADER, LeanRequest, parse_lean_request
from toolwire.mcp.lean.peer import PeerRoute
from toolwire.mcp.revision import listing_fields
from toolwire.mcp.server import call_plumbing
from toolwire.mcp.wire_json import dumps

if TYPE_CHECKING:
    from mcp.server import Server
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from starlette.types import Message, Receive, Scope, Send

    from toolwire.context import AbortSignal, ProgressEvent
    from toolwire.mcp.sessions import BoundedSessionManager
    from toolwire.tools import Tool

__all__ = ["LEAN_ENV", "LeanPath", "lean_enabled"]

LEAN_ENV = "TOOLWIRE_MCP_LEAN"
"""Set to ``0`` to serve every request through the SDK."""
_JSON: Final = b"application/json"
_CHECKED_HEADERS: Final = ("accept", "content-type", "host", "origin")
"""What the SDK's ``Accept`` check and DNS-rebinding protection read."""
_CHECKED_KEPT: Final = 256
_CONTENT_TYPE: Final = (b"content-type", _JSON)


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
        server: The SDK server `create_mcp_server` built (its registry, presenter, session
            records and cache hints are shared).
        sessions: The SDK's session manager (a handshake-era call is answered here only in
            an open session that no credential owns).
        security: The DNS-rebinding settings the SDK transport was given.
        max_body_bytes: The largest request body answered here (the SDK refuses larger ones
            with 413; such a request is handed to it).
    """

    def __init__(
        self,
        app: HangupWatcher,
        server: Server[Any],
        sessions: BoundedSessionManager,
        security: TransportSecuritySettings | None,
        *,
        max_body_bytes: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
    ) -> None:
        self._app = app
        self._server = server
        self._plumbing = call_plumbing(server)
        self._sessions = sessions
        self._security = TransportSecurityMiddleware(security)
        self._max_body = max_body_bytes
        self._peers = PeerRoute()
        self._header_params: dict[str, tuple[Tool, bool]] = {}
        self._checked: dict[tuple[str | None, ...], tuple[bool, bool]] = {}
        # The 2026-07-28 result's constant tail: the serverInfo stamp is fixed per server.
        stamp = listing_fields(server, LATEST_MODERN_VERSION)["_meta"]
        self._modern_tail = dumps({"resultType": "complete", "_meta": stamp})[1:]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a plain ``tools/call``/``tools/list`` POST, or hand the request on."""
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        headers = _headers(scope)
        body, pending, whole = await _read_body(receive, self._max_body, headers)
        replay = _replay(pending, receive)
        if headers is None or not whole:
            await self._app(scope, replay, send)  # cut short, too big or a repeated header
            return
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
            with _holding(transport):
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
        registry = self._plumbing.registry
        grant = request_grant(request)
        if lean.method == "tools/list":  # (a handshake-era list never comes here)
            tools = []
            for definition in registry.definitions():
                tool = registry.get(definition["name"])
                if tool is not None and (grant is None or visible(registry, grant, tool.name)):
                    spec = self._plumbing.as_mcp(tool)
                    tools.append(spec.model_dump(by_alias=True, mode="json", exclude_none=True))
            fields = listing_fields(self._server, lean.protocol_version)
            await self._send_result(send, lean, dumps({**fields, "tools": tools}))
            return True
        try:
            check_call(registry, grant, lean.name)
        except MCPError as refusal:
            await _respond_error(send, lean, refusal.error.code, refusal.error.message)
            return True
        tool = registry.get(lean.name)
        if tool is None or tool.requires_approval is not False or self._declares_headers(tool):
            return False  # unknown tool; the approval round trip; Mcp-Param-* checks
        if tool.long_running:
            return False  # it may become a task, answered as one (toolwire.mcp.tasks)
        peer = self._peers.admit(tool, lean)
        if peer is None:
            return False  # a tool that talks to a client it could reach: the SDK's peer
        if lean.session is not None:  # as the SDK does: the answer's head before the call
            head = _head(lean.session)
            await send({"type": "http.response.start", "status": 200, "headers": head})
        with self._app.watched_call() as signal:
            watch = _DisconnectWatch(receive, signal)
            try:
                with peer.bound():
                    result = await self._call(lean, signal)
            except BaseException:
                watch.stop()
                raise
            watch.settle()
        result.pop("resultType", None)  # the 2026-07-28 tail carries it; older revisions drop it
        await self._send_result(send, lean, dumps(result))
        return True

    def _declares_headers(self, tool: Tool) -> bool:
        """Whether ``tool``'s schema declares ``x-mcp-header`` parameters (the SDK checks
        their ``Mcp-Param-*`` headers against the arguments)."""
        known = self._header_params.get(tool.name)
        if known is None or known[0] is not tool:
            known = (tool, f'"{X_MCP_HEADER_KEY}"' in json.dumps(tool.schema, default=str))
            self._header_params[tool.name] = known
        return known[1]

    async def _call(self, lean: LeanRequest, signal: AbortSignal) -> dict[str, Any]:
        plumbing = self._plumbing
        session_id = plumbing.sessions.session_of_header(lean.session)
        tool = plumbing.registry.get(lean.name)
        async with plumbing.sessions.open(session_id, tool) as mtimes:  # kept before answering
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

    async def _send_result(self, send: Send, lean: LeanRequest, result: bytes) -> None:
        """Send the encoded ``result`` object in the envelope the SDK's runner gives it:
        ``resultType`` and the ``serverInfo`` stamp on 2026-07-28 (a ``tools/list`` result
        carries them already), none of them on older revisions."""
        if lean.session is None and lean.method == "tools/call":
            result = result[:-1] + (b"," if len(result) > 2 else b"") + self._modern_tail
        head = b'{"jsonrpc":"2.0","id":' + dumps(lean.request_id) + b',"result":'
        await _send_body(send, lean, 200, b"".join((head, result, b"}")))


def _headers(scope: Scope) -> dict[str, str] | None:
    """The request's headers (ASGI names are lower-case); ``None`` when one is repeated (the
    SDK decides which copy counts, or refuses)."""
    headers: dict[str, str] = {}
    for name, value in scope["headers"]:
        key = name.decode("latin-1")
        if key in headers:
            return None
        headers[key] = value.decode("latin-1")
    return headers


async def _read_body(
    receive: Receive, limit: int, headers: dict[str, str] | None
) -> tuple[bytes, list[Message], bool]:
    """The request body, the messages read (replayed to the SDK if it answers), and whether
    the body is whole. Reading stops at a disconnect, and past ``limit`` bytes (the SDK then
    refuses the request)."""
    declared = headers.get("content-length", "") if headers is not None else ""
    if declared.isdigit() and int(declared) > limit:
        return b"", [], False
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            body = b"".join(chunks)
            cut: Message = {"type": "http.request", "body": body, "more_body": True}
            return body, [cut, message], False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = message.get("more_body", False)
        if not more or size > limit:
            body = b"".join(chunks)
            read: Message = {"type": "http.request", "body": body, "more_body": more}
            return body, [read], not more and size <= limit


class _DisconnectWatch:
    """Aborts a fast-path call's ``signal`` when its client disconnects, from the loop turn
    after the call started: a call that waits on anything is watched by one pending
    ``receive``, and one that finishes in its first turn (most plain calls) costs no task.

    Once the answer is out, ``receive`` returns ``http.disconnect`` and the watching task ends
    by itself (`settle`), so it is cancelled only when the call fails (`stop`): a cancelled
    task costs an exception's cycle."""

    __slots__ = ("_receive", "_signal", "_start", "_task")

    def __init__(self, receive: Receive, signal: AbortSignal) -> None:
        self._receive = receive
        self._signal = signal
        self._task: asyncio.Task[None] | None = None
        self._start = asyncio.get_running_loop().call_soon(self._begin)

    def _begin(self) -> None:
        self._task = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        message = await self._receive()
        if message["type"] == "http.disconnect":
            self._signal.abort(CLIENT_GONE)

    def settle(self) -> None:
        """The call answered: a watch not started yet never starts; a started one ends when
        the answer is out."""
        self._start.cancel()

    def stop(self) -> None:
        """The call failed: stop watching now."""
        self._start.cancel()
        if self._task is not None:
            self._task.cancel()


def _replay(pending: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives the messages already read once, then the client's own."""
    queue = list(reversed(pending))

    async def replayed() -> Message:
        if queue:
            return queue.pop()
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
    payload = {"jsonrpc": "2.0", "id": lean.request_id, "error": error}
    await _send_body(send, lean, status, dumps(payload))


async def _send_body(send: Send, lean: LeanRequest, status: int, body: bytes) -> None:
    """Send the answer (a handshake-era call's head is already sent: only its body)."""
    if lean.session is None:
        headers = [_CONTENT_TYPE, (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _head(session: str) -> list[tuple[bytes, bytes]]:
    """The head of a handshake-era answer, sent before the call runs so a client can hang up
    on it (closing the response aborts the call)."""
    return [_CONTENT_TYPE, (SESSION_HEADER.encode(), session.encode("latin-1"))]


def _drop(event: ProgressEvent) -> None:
    """Progress nobody asked for (a call that wants progress goes to the SDK)."""
