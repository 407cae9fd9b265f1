"""Handshake-era MCP sessions that any replica answers: recorded on the store, restored here.

`SharedSessions` is what `toolwire.mcp.server.sessions.BoundedSessionManager` uses with replicas:

- **recording**: a server middleware writes the session's record
  (`toolwire.replicas.SessionRecord`) while ``initialize`` is answered — before the answer
  leaves — and writes the level a ``logging/setLevel`` chose into it;
- **restoring**: `serve_restored` serves a session this replica does not hold from its record,
  as if the client's ``initialize`` had come here: the negotiated version, the client's
  capabilities and info, the connection already initialized. The client notices nothing (no
  new ``initialize``, same ``Mcp-Session-Id``);
- **log levels**: each request's record (`SharedSessions.note`) carries the session's level;
  a replica whose own table says otherwise (the client chose it through another replica, or
  the session was restored here) sets it again before serving the request.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import mcp_types as mt
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp.server.connection import Connection
from mcp.server.runner import ServerRunner, serve_connection
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.transport_context import TransportContext

from toolwire.errors import StoreError
from toolwire.replicas._session_records import SessionRecord, SessionRecords

if TYPE_CHECKING:
    from mcp.server import Server
    from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.shared._stream_protocols import ReadStream, WriteStream
    from mcp.shared.message import SessionMessage

    from toolwire.replicas._state import ReplicaState

__all__ = ["SharedSessions", "requestor_of", "serve_restored", "shared_sessions"]

logger = logging.getLogger("toolwire.replicas.handshake_sessions")

_LEVELS_KEPT = 10_000


def shared_sessions(replicas: ReplicaState | None, idle_timeout_s: float) -> SharedSessions | None:
    """The replicas' shared sessions (``None`` without replicas: sessions stay local)."""
    if replicas is None:
        return None
    return SharedSessions(
        replicas.sessions, replica_id=replicas.replica_id, idle_timeout_s=idle_timeout_s
    )


def requestor_of(scope: Any) -> AuthorizationContext | None:
    """The credential of an HTTP request (as the SDK compares sessions' owners)."""
    user = scope.get("user") if isinstance(scope, dict) else None
    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


class SharedSessions:
    """Session records on the replicas' store (see the module docstring).

    Args:
        records: The store's session records.
        replica_id: This replica (written into the records it opens).
        idle_timeout_s: A session's idle timeout, which is its record's time to live.
    """

    def __init__(self, records: SessionRecords, *, replica_id: str, idle_timeout_s: float) -> None:
        self.records = records
        self.replica_id = replica_id
        self.idle_timeout_s = idle_timeout_s
        self._server: Server[Any] | None = None
        self._wanted: OrderedDict[str, str | None] = OrderedDict()  # the record's level
        self._applied: dict[str, str | None] = {}  # what this replica's table holds

    def note(self, record: SessionRecord) -> None:
        """Remember the level ``record`` holds for its session (read at each request)."""
        self._wanted[record.session_id] = record.log_level
        self._wanted.move_to_end(record.session_id)
        while len(self._wanted) > _LEVELS_KEPT:
            dropped, _ = self._wanted.popitem(last=False)
            self._applied.pop(dropped, None)

    def install(self, server: Server[Any]) -> None:
        """Record sessions opened on ``server`` (its outermost middleware)."""
        self._server = server
        server.middleware.insert(0, self.middleware)

    async def middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Record ``initialize`` and ``logging/setLevel``; restore a log level."""
        connection = _connection_of(ctx)
        session_id = connection.session_id if connection is not None else None
        if connection is None or session_id is None:
            return await call_next(ctx)
        wanted = self._wanted.get(session_id)
        if wanted is not None and wanted != self._applied.get(session_id):
            if self._server is not None:
                await _set_level_again(self._server, ctx, wanted)
            self._applied[session_id] = wanted
        result = await call_next(ctx)
        if ctx.method == "initialize":
            await self._record_opening(ctx, session_id)
        elif ctx.method == "logging/setLevel":
            level = (ctx.params or {}).get("level")
            if isinstance(level, str):
                self._applied[session_id] = self._wanted[session_id] = level
                await self.records.update(session_id, lambda r: replace(r, log_level=level))
        return result

    async def _record_opening(self, ctx: ServerRequestContext[Any, Any], session_id: str) -> None:
        client_params, version = ServerRunner._negotiate_initialize(ctx.params)
        scope = getattr(ctx.request, "scope", None)
        owner = requestor_of(scope)
        now = time.time()
        record = SessionRecord(
            session_id=session_id,
            protocol_version=version,
            client_params=client_params.model_dump(by_alias=True, mode="json", exclude_none=True),
            owner=dict(owner) if owner is not None else None,
            created_at=now,
            last_seen=now,
            idle_timeout_s=self.idle_timeout_s,
            replica_id=self.replica_id,
        )
        try:
            await self.records.save(record)
        except StoreError:  # the session still works here; other replicas answer it 404
            logger.exception("session %s: could not record it on the store", session_id)


def _connection_of(ctx: ServerRequestContext[Any, Any]) -> Connection | None:
    """The connection of a request (the SDK's session object keeps it unexposed)."""
    connection = getattr(ctx.session, "_connection", None)
    return connection if isinstance(connection, Connection) else None


async def _set_level_again(
    server: Server[Any], ctx: ServerRequestContext[Any, Any], level: str
) -> None:
    """Replay a restored session's ``logging/setLevel`` into this replica's table."""
    entry = server.get_request_handler("logging/setLevel")
    if entry is None:
        return
    try:
        await entry.handler(ctx, mt.SetLevelRequestParams.model_validate({"level": level}))
    except Exception:
        logger.debug("restoring the log level of a session failed", exc_info=True)


async def serve_restored(
    server: Server[Any],
    read_stream: ReadStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
    record: SessionRecord,
    *,
    lifespan_state: Any,
) -> None:
    """Serve the session ``record`` describes over the streams, already initialized (what
    `mcp.server.runner.serve_loop` does after a handshake, without one)."""
    dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(
        read_stream, write_stream, inline_methods=frozenset({"initialize"})
    )
    connection = Connection.for_loop(
        dispatcher, session_id=record.session_id, protocol_version_hint=record.protocol_version
    )
    if record.client_params is not None:
        connection.client_params = mt.InitializeRequestParams.model_validate(record.client_params)
    connection.protocol_version = record.protocol_version
    connection.initialized.set()
    await serve_connection(server, dispatcher, connection=connection, lifespan_state=lifespan_state)
