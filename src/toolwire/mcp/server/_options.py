"""`ServeOptions`: how a registry is served over MCP
(`toolwire.mcp.server._server.create_mcp_server`, `toolwire.mcp.server.serving.serve_http`), and the
defaults it starts from."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolwire.context import DEFAULT_RESULT_BUDGET_CHARS
from toolwire.errors import ConfigurationError
from toolwire.mcp.server._identity import ServerIdentity
from toolwire.mcp.server.cors import check_cors_origins
from toolwire.mcp.server.listing import DEFAULT_TOOLS_LIST_TTL_S
from toolwire.replicas._session_read_records import STATELESS_SESSIONS, StatelessSessions

if TYPE_CHECKING:
    from mcp.server import Server

    from toolwire.mcp.server.auth.server_auth import ServerAuth
    from toolwire.presenting import Presenter
    from toolwire.replicas._state import ReplicaState

__all__ = [
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_MAX_SESSIONS_PER_PRINCIPAL",
    "DEFAULT_SESSION_IDLE_TIMEOUT_S",
    "ServeOptions",
]

DEFAULT_HTTP_HOST = "127.0.0.1"
"""Where `serve_http` listens unless told: loopback only."""
DEFAULT_HTTP_PORT = 8765
"""The port `serve_http` listens on unless told."""
DEFAULT_SESSION_IDLE_TIMEOUT_S = 300.0
"""How long an HTTP session may sit idle (no request in flight) before it is closed."""
DEFAULT_MAX_SESSIONS = 1000
"""How many HTTP sessions may be open at once (each costs tens of kilobytes)."""
DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 100
"""How many of them one credential may hold (an authenticated server's clients)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ServeOptions:
    """How a registry is served.

    Attributes:
        name: The server name clients see.
        result_budget_chars: The per-request budget: the registry trims a success to it (plus
            the ``[truncated — N chars total]`` marker) and the presenter caps any text,
            errors included, at it (plus room for that marker).
        working_dir: The tools' working directory (the process's by default).
        presenter: Turns an outcome into the text the client reads; by default a
            `toolwire.presenting.Presenter` whose ingestion cap is ``result_budget_chars``.
        instructions: Optional server instructions shown to clients.
        session_idle_timeout_s: Streamable HTTP: a session with no request in flight (and no
            open GET stream) for this long is closed; its id then answers 404 and the client
            starts a new session.
        max_sessions: Streamable HTTP: how many sessions may be open at once. A new session
            at the cap closes the one of its own principal idle the longest (any principal's
            own, never another's); only when none of them is idle is the newcomer refused
            (503).
        max_sessions_per_principal: Streamable HTTP with ``auth``: how many sessions one
            credential may hold at once; at that cap its new session closes its own session
            idle the longest (503 when all of them are busy). So no credential fills the
            server: ``max_sessions`` / ``max_sessions_per_principal`` credentials always fit.
        stateless_sessions: Whose 2026-07-28 requests share a session (todo list, result
            handles, read records, browser context): ``"per_principal"`` (each credential
            its own, the default) or ``"shared"`` (every client one session, as a server
            without authentication has anyway).
        auth: Streamable HTTP: who may connect, and which tools each credential sees and
            calls (`toolwire.mcp.server.auth.server_auth.ServerAuth`); ``None``: nobody is asked,
            which `serve_http` allows only on a loopback address.
        insecure_no_auth: Let `serve_http` bind a non-loopback address without ``auth``
            (behind a proxy that authenticates); it warns loudly.
        server_features: Called with the low-level server once toolwire's handlers are on
            it, to add more: resources, prompts, completion (docs/mcp.md, "Resources beside
            the tools"); such a server answers every request on the SDK path.
        identity: The server's title, description, website and icons (``serverInfo``).
        tools_list_ttl_s: How long a client may cache ``tools/list`` and ``server/discover``
            (2026-07-28 ``ttlMs``; ``cacheScope`` is ``private`` when ``auth`` is set).
        replicas: This server as one of several replicas on a shared store
            (`toolwire.replicas.ReplicaState`): handshake-era sessions and read records on
            the store, each principal's stateless session the same on every replica
            (docs/scaling.md); ``None``: one server.
        cors_origins: Streamable HTTP: the origins of web pages that may call the server from
            a browser (``https://app.example.com``): their CORS preflights are answered before
            authentication and the answers are readable by them (`toolwire.mcp.server.cors`);
            ``()``: no browser page may.
    """

    name: str = "toolwire"
    result_budget_chars: int = DEFAULT_RESULT_BUDGET_CHARS
    working_dir: str | None = None
    presenter: Presenter | None = None
    instructions: str | None = None
    session_idle_timeout_s: float = DEFAULT_SESSION_IDLE_TIMEOUT_S
    max_sessions: int = DEFAULT_MAX_SESSIONS
    max_sessions_per_principal: int = DEFAULT_MAX_SESSIONS_PER_PRINCIPAL
    stateless_sessions: StatelessSessions = "per_principal"
    auth: ServerAuth | None = None
    insecure_no_auth: bool = False
    server_features: tuple[Callable[[Server[Any]], None], ...] = ()
    identity: ServerIdentity = field(default_factory=ServerIdentity)
    tools_list_ttl_s: float = DEFAULT_TOOLS_LIST_TTL_S
    replicas: ReplicaState | None = None
    cors_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_cors_origins(self.cors_origins)
        if self.result_budget_chars < 1:
            raise ConfigurationError("ServeOptions.result_budget_chars must be >= 1")
        if not 0 < self.session_idle_timeout_s < math.inf:
            raise ConfigurationError("ServeOptions.session_idle_timeout_s must be > 0 seconds")
        if self.max_sessions < 1:
            raise ConfigurationError("ServeOptions.max_sessions must be >= 1")
        if self.max_sessions_per_principal < 1:
            raise ConfigurationError("ServeOptions.max_sessions_per_principal must be >= 1")
        if self.stateless_sessions not in STATELESS_SESSIONS:
            raise ConfigurationError(
                "ServeOptions.stateless_sessions must be 'per_principal' or 'shared', got "
                f"{self.stateless_sessions!r}"
            )
