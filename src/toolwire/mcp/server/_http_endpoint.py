"""The streamable HTTP endpoint of a served registry: the ASGI app and what stops it.

``/mcp`` is the SDK's streamable HTTP transport with toolwire's bounded sessions
(`toolwire.mcp.server.sessions`), whose SSE streams are resumable (events kept in the registry's
key-value store, `toolwire.mcp.server.event_store`), behind a hang-up watcher
(`toolwire.mcp.server.hangups`), so a client that goes away aborts its calls (unless it can resume
the call's stream). ``/healthz`` (`toolwire.mcp.server.health`) answers a load balancer's check,
probing the store, without authentication. `HttpEndpoint.stop` is the first step of a
graceful shutdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route

from toolwire.mcp.server._server import ServeOptions, build_mcp_server
from toolwire.mcp.server.cors import trusting_origins, with_cors
from toolwire.mcp.server.event_store import DEFAULT_EVENT_TTL_S, KvEventStore
from toolwire.mcp.server.fast_http import LeanFront, LeanPath, lean_enabled
from toolwire.mcp.server.hangups import HangupWatcher
from toolwire.mcp.server.health import health_route
from toolwire.mcp.server.sessions import BoundedSessionManager
from toolwire.replicas.handshake_sessions import shared_sessions

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from toolwire.registry import ToolRegistry

__all__ = ["ENDPOINT_PATH", "HttpEndpoint", "create_http_endpoint"]

ENDPOINT_PATH = "/mcp"
_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True, kw_only=True, slots=True)
class HttpEndpoint:
    """The app to serve, and its sessions and hang-ups.

    Attributes:
        app: The ASGI app (a Starlette app, whose lifespan runs the sessions, behind
            `toolwire.mcp.server.fast_http.LeanFront` when the fast path is on).
        sessions: The open MCP sessions.
        hangups: The hang-up signals of the HTTP requests in flight.
    """

    app: ASGIApp
    sessions: BoundedSessionManager
    hangups: HangupWatcher

    def stop(self, reason: str) -> None:
        """Abort every call in flight (answered ``aborted: <reason>`` where a client still
        listens) and end every session, so open streams close and connections can finish."""
        self.hangups.hang_up_all(reason)
        self.sessions.close_all()


def create_http_endpoint(
    registry: ToolRegistry, options: ServeOptions | None, *, host: str
) -> HttpEndpoint:
    """``registry`` at ``/mcp``; DNS-rebinding protection when ``host`` is a loopback name;
    ``options.auth``'s guard, grant enforcement and metadata routes when it is set."""
    opts = options or ServeOptions()
    built = build_mcp_server(registry, opts)
    server = built.sdk
    if opts.auth is not None:  # each credential lists and calls only what it was granted
        server.middleware.append(opts.auth.tool_access(registry))
    security = trusting_origins(_local_only() if host in _LOCAL_HOSTS else None, opts.cors_origins)
    sessions = BoundedSessionManager(
        server,
        idle_timeout_s=opts.session_idle_timeout_s,
        max_sessions=opts.max_sessions,
        max_per_principal=opts.max_sessions_per_principal,  # with auth: no one fills it
        security_settings=security,
        shared=shared_sessions(opts.replicas, opts.session_idle_timeout_s),  # replicas
        events=KvEventStore.for_registry(  # resumable SSE streams (toolwire.mcp.server.resumable)
            registry, ttl_s=min(opts.session_idle_timeout_s, DEFAULT_EVENT_TTL_S)
        ),
    )
    hangups = HangupWatcher(StreamableHTTPASGIApp(sessions))
    lean = lean_enabled() and not opts.server_features  # extra SDK features: all on the SDK
    # the fast path answers in front of the watcher (it watches its own calls' hang-ups)
    watched: ASGIApp = LeanPath(hangups, built, sessions, security) if lean else hangups
    endpoint = watched if opts.auth is None else opts.auth.guard(watched)
    extra = [] if opts.auth is None else opts.auth.metadata_routes()  # RFC 9728, OAuth mode
    app: ASGIApp = Starlette(
        routes=[Route(ENDPOINT_PATH, endpoint=endpoint), _health(registry, opts), *extra],
        lifespan=lambda _: sessions.run(),
    )
    if lean:  # POST /mcp past Starlette's routing and middleware
        app = LeanFront(app, ENDPOINT_PATH, endpoint)
    if opts.cors_origins:  # browser pages: preflights answered before anything else
        app = with_cors(app, opts.cors_origins)
    return HttpEndpoint(app=app, sessions=sessions, hangups=hangups)


def _health(registry: ToolRegistry, opts: ServeOptions) -> Route:
    """``/healthz``, probing the store the server runs on (the replicas' shared one)."""
    backends = registry.backends
    backend = opts.replicas.backend if opts.replicas is not None else None
    if backend is None and backends is not None:
        backend = backends.kv_backend
    return health_route(backend)


def _local_only() -> TransportSecuritySettings:
    """Only local ``Host``/``Origin`` headers (the SDK's default for a loopback server)."""
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
