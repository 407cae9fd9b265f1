"""Streamable HTTP sessions with a bound: idle ones expire, and a full house evicts, not refuses.

A handshake-era client opens a session (``Mcp-Session-Id``) and should close it with
``DELETE``; many never do. Each open session costs tens of kilobytes, and the SDK keeps one for
30 minutes and then refuses every new client (503) at its cap of 10,000. Here:

- a session with no request in flight and no open GET stream for ``idle_timeout_s`` is closed
  (the SDK's own idle expiry, with toolwire's shorter default);
- at ``max_sessions``, opening one more closes the session that has been idle the longest, so
  the newcomer is served; only when every session is busy is it refused with 503 (after a
  short wait for one to become idle: a session counts as busy until its last answer has gone
  out, so a client that asks again at once would otherwise race its own previous request).
- a session belongs to the credential that opened it (the SDK answers another credential 404),
  and only its own sessions are ever closed to make room for it: one credential opening
  sessions never closes another's. An authenticated credential holds at most
  ``max_per_principal`` sessions; at that cap its own session idle the longest is closed (503
  when all of them are busy), so no credential can fill the server for the others.

A closed session's id answers 404 ("Session not found"), as the spec asks, and its client
starts a new session.

With replicas (``shared``, `toolwire.replicas.handshake_sessions.SharedSessions`), a session is its
record on the store, and a replica's local transport is only a cache of it:

- a request naming a session this replica does not hold is served from the record, restored
  without a new ``initialize`` (another credential than the one that opened it gets 404);
- every request checks the record first, so a ``DELETE`` served by any replica ends the
  session on all of them (404 everywhere from then on), and refreshes its expiry (the idle
  timeout is the record's time to live: a session idle that long is gone on every replica);
- a local transport that goes idle, or is evicted at ``max_sessions``, is only closed here:
  the session lives on, and the next request restores it. ``max_sessions`` therefore bounds
  each replica's memory (the cluster holds up to replicas × ``max_sessions`` at once), and
  eviction at the cap costs a restore, never a session.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskStatus
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager, _error_response
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types import INTERNAL_ERROR

from toolwire.errors import StoreError
from toolwire.mcp.revision import is_handshake
from toolwire.mcp.server.resumable import resumable_transport
from toolwire.replicas.handshake_sessions import requestor_of, serve_restored

if TYPE_CHECKING:
    from mcp.server import Server
    from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.types import Receive, Scope, Send

    from toolwire.mcp.server.event_store import KvEventStore
    from toolwire.replicas._session_records import SessionRecord
    from toolwire.replicas.handshake_sessions import SharedSessions

__all__ = ["BoundedSessionManager"]

logger = logging.getLogger("toolwire.mcp.server.sessions")

ROOM_WAIT_S = 0.5
"""How long a new session waits for room when every open session is busy."""
_SESSION_HEADER = MCP_SESSION_ID_HEADER.lower().encode("latin-1")
_VERSION_HEADER = MCP_PROTOCOL_VERSION_HEADER.lower().encode("latin-1")


class BoundedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, evicting the longest-idle session at the cap.

    Args:
        server: The MCP server the sessions talk to.
        idle_timeout_s: Seconds a session may sit idle before it is closed.
        max_sessions: Sessions open at once.
        security_settings: DNS-rebinding protection (``None``: off).
        events: Where the sessions' SSE events are kept so clients can resume their streams
            (`toolwire.mcp.server.resumable`); ``None``: streams are not resumable.
        shared: The replicas' session records (``None``: sessions live in this process only).
        max_per_principal: Sessions one authenticated credential may hold at once
            (``None``: ``max_sessions``).
    """

    def __init__(
        self,
        server: Server[Any],
        *,
        idle_timeout_s: float,
        max_sessions: int,
        security_settings: TransportSecuritySettings | None = None,
        events: KvEventStore | None = None,
        shared: SharedSessions | None = None,
        max_per_principal: int | None = None,
    ) -> None:
        super().__init__(
            server,
            security_settings=security_settings,
            session_idle_timeout=idle_timeout_s,
            max_sessions=max_sessions,
        )
        self._events = events
        self.shared = shared
        self.max_per_principal = max_per_principal or max_sessions
        if shared is not None:
            shared.install(server)

    @property
    def open_sessions(self) -> int:
        """How many sessions are open."""
        return len(self._server_instances)

    async def _handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        session_id = _legacy_session_id(scope)
        if self.shared is not None and session_id is not None:
            await self._handle_shared(session_id, scope, receive, send)
            return
        if _opens_a_session(scope):
            requestor = requestor_of(scope)
            if not self._room_for(requestor):
                with anyio.move_on_after(ROOM_WAIT_S):
                    while not self._room_for(requestor):
                        await anyio.sleep(0.01)
        await super()._handle_request(scope, receive, send)

    async def still_open(self, session_id: str) -> bool:
        """Whether a session this replica holds may still be served: always without
        replicas; with them, while its record is on the store (whose expiry this pushes
        out, as every request does). For paths that answer a local session themselves."""
        if self.shared is None:
            return True
        try:
            record = await self.shared.records.load(session_id)
            if record is not None:
                await self.shared.records.touch(record)
        except StoreError:
            return False
        return record is not None

    async def _handle_shared(
        self, session_id: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """A request in a session, with replicas: the record decides, the transport serves."""
        assert self.shared is not None
        records = self.shared.records
        try:
            record = await records.load(session_id)
        except StoreError as exc:
            logger.warning("session %s: the store failed: %s", session_id[:64], exc)
            await _error_response("Session store unavailable", 503, INTERNAL_ERROR)(
                scope, receive, send
            )
            return
        requestor = requestor_of(scope)
        if record is not None:
            self.shared.note(record)  # its log level, as chosen through any replica
        if record is None or not record.owned_by(requestor):
            local = self._server_instances.get(session_id)
            if record is None and local is not None:  # deleted or expired elsewhere
                self._server_instances.pop(session_id, None)
                self._session_owners.pop(session_id, None)
                _end(local)
            await _error_response("Session not found", 404)(scope, receive, send)
            return
        if session_id not in self._server_instances:
            await self._restore(record, requestor)
        if scope.get("method") == "DELETE":  # gone on every replica before the answer
            await records.delete(session_id)
            await super()._handle_request(scope, receive, send)
            return
        try:
            await records.touch(record)
        except StoreError as exc:
            logger.warning("session %s: could not refresh its expiry: %s", session_id[:64], exc)
        await super()._handle_request(scope, receive, send)

    async def _restore(self, record: SessionRecord, requestor: AuthorizationContext | None) -> None:
        """Serve ``record``'s session here from now on, as if it had been opened here."""
        session_id = record.session_id
        async with self._session_creation_lock:
            if session_id in self._server_instances:
                return
            full = self.max_sessions is not None and self.open_sessions >= self.max_sessions
            # Its own idle session first; else anyone's: only a cache of that session is
            # closed here (its record lives on), which costs its client a restore.
            if full and not self._evict_longest_idle(requestor):
                self._evict_longest_idle(requestor, anyone=True)
            transport = StreamableHTTPServerTransport(
                mcp_session_id=session_id,
                is_json_response_enabled=self.json_response,
                event_store=self.event_store,
                security_settings=self.security_settings,
                retry_interval=self.retry_interval,
                idle_timeout=self.session_idle_timeout,
            )
            if self._events is not None:  # its streams resumable here too
                transport = resumable_transport(self, transport, self._events)
            if requestor is not None:
                self._session_owners[session_id] = requestor
            self._server_instances[session_id] = transport

        async def run_restored(
            *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
        ) -> None:
            async with transport.connect() as (read_stream, write_stream):
                task_status.started()
                try:
                    idle_scope = transport.idle_scope or anyio.CancelScope()
                    with idle_scope:
                        await serve_restored(
                            self.app,
                            read_stream,
                            write_stream,
                            record,
                            lifespan_state=self._lifespan_state,
                        )
                except Exception:
                    logger.exception("restored session %s crashed", session_id)
                finally:
                    await self._discard_session(session_id, transport)

        assert self._task_group is not None
        await self._task_group.start(run_restored)
        logger.info("restored session %s from the store", session_id)

    def _own_sessions(self, requestor: AuthorizationContext | None) -> list[str]:
        """The open sessions ``requestor`` opened (``None``: those nobody authenticated)."""
        owners = self._session_owners
        return [sid for sid in self._server_instances if owners.get(sid) == requestor]

    def _at_own_cap(self, requestor: AuthorizationContext | None) -> bool:
        return requestor is not None and (
            len(self._own_sessions(requestor)) >= self.max_per_principal
        )

    def _room_for(self, requestor: AuthorizationContext | None) -> bool:
        """Whether a new session of ``requestor`` fits now, or one of its own idle ones
        can make room for it."""
        full = self.max_sessions is not None and self.open_sessions >= self.max_sessions
        if not (full or self._at_own_cap(requestor)):
            return True
        return any(
            _idle_deadline(self._server_instances[sid]) is not None
            for sid in self._own_sessions(requestor)
        )

    def _admit_session(
        self, requestor: AuthorizationContext | None
    ) -> StreamableHTTPServerTransport | None:
        # The SDK calls this under its session-creation lock to register a new session (None
        # at the cap means 503): make room first when one of the requestor's own sessions can
        # give it up. Another credential's sessions are never closed for it.
        full = self.max_sessions is not None and self.open_sessions >= self.max_sessions
        if full or self._at_own_cap(requestor):
            self._evict_longest_idle(requestor)
        if self._at_own_cap(requestor):
            return None  # every one of its own sessions is busy: 503
        admitted = super()._admit_session(requestor)
        if admitted is None or self._events is None:
            return admitted
        resumable = resumable_transport(self, admitted, self._events)
        self._server_instances[str(admitted.mcp_session_id)] = resumable
        return resumable

    def _evict_longest_idle(
        self, requestor: AuthorizationContext | None, *, anyone: bool = False
    ) -> bool:
        """Close the session of ``requestor`` (of anyone with ``anyone``) idle the longest;
        whether one was (none when all of them are busy)."""
        owners = self._session_owners
        oldest: tuple[float, str] | None = None
        for session_id, transport in self._server_instances.items():
            if not anyone and owners.get(session_id) != requestor:
                continue
            idle_until = _idle_deadline(transport)
            if idle_until is not None and (oldest is None or idle_until < oldest[0]):
                oldest = (idle_until, session_id)
        if oldest is None:
            return False
        session_id = oldest[1]
        transport = self._server_instances.pop(session_id)
        owners.pop(session_id, None)
        _end(transport)
        logger.info("closed idle session %s to make room for a new one", session_id)
        return True

    def close_all(self) -> None:
        """End every session (the server is stopping): calls in flight are cancelled, streams
        closed, and every id answers 404 from now on."""
        for session_id, transport in list(self._server_instances.items()):
            self._server_instances.pop(session_id, None)
            self._session_owners.pop(session_id, None)
            _end(transport)


def _legacy_session_id(scope: Scope) -> str | None:
    """The ``Mcp-Session-Id`` of a handshake-era request (``None``: none, or 2026-07-28)."""
    headers = dict(scope.get("headers") or ())
    version = headers.get(_VERSION_HEADER)
    if not is_handshake(None if version is None else version.decode("latin-1")):
        return None
    value = headers.get(_SESSION_HEADER)
    return value.decode("latin-1") if value else None


def _opens_a_session(scope: Scope) -> bool:
    """A handshake-era request without a session id (2026-07-28 requests open none)."""
    headers = dict(scope.get("headers") or ())
    version = headers.get(_VERSION_HEADER)
    handshake = is_handshake(None if version is None else version.decode("latin-1"))
    return handshake and _SESSION_HEADER not in headers


def _idle_deadline(transport: StreamableHTTPServerTransport) -> float | None:
    """When an idle session would expire; ``None`` while a request is in flight (or an open GET
    stream, or the session is still being opened or already ending)."""
    scope = transport.idle_scope
    if scope is None or scope.cancel_called or transport.is_terminated:
        return None
    return scope.deadline if math.isfinite(scope.deadline) else None


def _end(transport: StreamableHTTPServerTransport) -> None:
    """End a session the way its idle timeout does: its task leaves the message loop (calls in
    flight are cancelled) and terminates the transport; a request still arriving gets 404."""
    if transport.idle_scope is not None:
        transport.idle_scope.cancel()
