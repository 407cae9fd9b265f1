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

A closed session's id answers 404 ("Session not found"), as the spec asks, and its client
starts a new session.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

if TYPE_CHECKING:
    from mcp.server import Server
    from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.types import Receive, Scope, Send

__all__ = ["BoundedSessionManager"]

logger = logging.getLogger("toolwire.mcp.sessions")

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
    """

    def __init__(
        self,
        server: Server[Any],
        *,
        idle_timeout_s: float,
        max_sessions: int,
        security_settings: TransportSecuritySettings | None = None,
    ) -> None:
        super().__init__(
            server,
            security_settings=security_settings,
            session_idle_timeout=idle_timeout_s,
            max_sessions=max_sessions,
        )

    @property
    def open_sessions(self) -> int:
        """How many sessions are open."""
        return len(self._server_instances)

    async def _handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._full_of_busy_sessions() and _opens_a_session(scope):
            with anyio.move_on_after(ROOM_WAIT_S):
                while self._full_of_busy_sessions():
                    await anyio.sleep(0.01)
        await super()._handle_request(scope, receive, send)

    def _full_of_busy_sessions(self) -> bool:
        return (
            self.max_sessions is not None
            and self.open_sessions >= self.max_sessions
            and all(_idle_deadline(t) is None for t in self._server_instances.values())
        )

    def _admit_session(
        self, requestor: AuthorizationContext | None
    ) -> StreamableHTTPServerTransport | None:
        # The SDK calls this under its session-creation lock to register a new session (None
        # at the cap means 503): make room first when a session can give it up.
        if self.max_sessions is not None and self.open_sessions >= self.max_sessions:
            self._evict_longest_idle()
        return super()._admit_session(requestor)

    def _evict_longest_idle(self) -> None:
        """Close the session idle the longest; none when every session is busy."""
        oldest: tuple[float, str] | None = None
        for session_id, transport in self._server_instances.items():
            idle_until = _idle_deadline(transport)
            if idle_until is not None and (oldest is None or idle_until < oldest[0]):
                oldest = (idle_until, session_id)
        if oldest is None:
            return
        session_id = oldest[1]
        transport = self._server_instances.pop(session_id)
        self._session_owners.pop(session_id, None)
        _end(transport)
        logger.info("closed idle session %s to make room for a new one", session_id)

    def close_all(self) -> None:
        """End every session (the server is stopping): calls in flight are cancelled, streams
        closed, and every id answers 404 from now on."""
        for session_id, transport in list(self._server_instances.items()):
            self._server_instances.pop(session_id, None)
            self._session_owners.pop(session_id, None)
            _end(transport)


def _opens_a_session(scope: Scope) -> bool:
    """A handshake-era request without a session id (2026-07-28 requests open none)."""
    headers = dict(scope.get("headers") or ())
    version = headers.get(_VERSION_HEADER)
    handshake = version is None or version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS
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
