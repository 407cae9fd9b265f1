"""Where a served registry listens: stdio, or streamable HTTP on a socket we bind ourselves.

Both serve until the client goes away (stdio) or until cancelled, and cancelling stops them
cleanly: calls in flight are aborted (their commands killed), HTTP sessions are closed and
connections get a moment to finish, and nothing waits for a client to send another byte. What
a signal means is the caller's choice (``toolwire serve`` turns SIGTERM and SIGINT into that
cancellation); uvicorn's own signal handling is off.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib.util
import logging
import socket
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal, cast

import anyio

from toolwire.errors import ConfigurationError
from toolwire.mcp.server._server import (
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    ServeOptions,
    create_mcp_server,
)

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp

    from toolwire.registry import ToolRegistry

__all__ = [
    "check_served_exposure",
    "create_http_app",
    "event_loop_options",
    "http_protocol",
    "serve_http",
    "serve_registry",
    "serve_stdio",
]

logger = logging.getLogger("toolwire.mcp.server.serving")

SHUTDOWN_GRACE_S = 3
"""How long a stopping HTTP server lets open connections finish before cancelling them."""
_STOPPING = "the MCP server is stopping"


def http_protocol() -> type[asyncio.Protocol] | str:
    """What `serve_http` gives ``uvicorn.Config(http=...)``: the httptools protocol that writes each
    answer in one go (`toolwire.mcp.server.fast_http.coalesce`), or ``"auto"`` (uvicorn's choice)
    when ``TOOLWIRE_MCP_HTTP_COALESCE=0`` or ``httptools`` is not installed."""
    from toolwire.mcp.server.fast_http.coalesce import coalesce_enabled

    if not coalesce_enabled() or importlib.util.find_spec("httptools") is None:
        return "auto"
    from toolwire.mcp.server.fast_http._coalesce_protocol import CoalescingHttpToolsProtocol

    return CoalescingHttpToolsProtocol


async def serve_stdio(registry: ToolRegistry, options: ServeOptions | None = None) -> None:
    """Serve ``registry`` on this process's stdin/stdout until the client disconnects (stdin
    closes: the requests read before are answered, the calls still running after the grace,
    ``TOOLWIRE_STDIO_EOF_GRACE_S``, are aborted; `toolwire.mcp.server.fast_stdio.grace`) or until
    cancelled (calls in flight are aborted).

    The lean loop (`toolwire.mcp.server.fast_stdio`) answers the handshake, ``tools/list`` and plain
    calls before the SDK is even imported, and hands the connection to the SDK server at the
    first message it does not answer itself (``TOOLWIRE_MCP_LEAN=0``: the SDK from the
    start)."""
    from toolwire.mcp.server.fast_stdio import lean_stdio_applies, serve_lean_stdio
    from toolwire.mcp.server.fast_stdio.grace import StdinEnd, eof_grace_s, watched_stdout
    from toolwire.mcp.server.stdin_lines import stdin_lines

    grace_s = eof_grace_s()
    if lean_stdio_applies(options):
        async with stdin_lines() as lines:
            if lines is not None and await serve_lean_stdio(
                registry, options, lines, grace_s=grace_s
            ):
                return
    from mcp.server.stdio import stdio_server

    from toolwire.mcp.server.fast_stdio.sdk_streams import graceful_streams

    server = create_mcp_server(registry, options)
    _freeze_startup_objects()
    with watched_stdout() as wire_fd:  # taken before stdio_server points fd 1 at stderr
        async with stdin_lines() as lines:
            # stdio_server only iterates the lines it is given; ours never hold up cancellation.
            stdin = cast("anyio.AsyncFile[str] | None", lines)
            try:
                async with stdio_server(stdin=stdin) as (read, write):
                    read, write = graceful_streams(read, write, StdinEnd(grace_s, wire_fd))
                    await server.run(read, write, server.create_initialization_options())
            except* BrokenPipeError:  # the client has gone: its last answers had no reader
                logger.info("the stdio client closed stdout before its last answers")


def _freeze_startup_objects() -> None:
    """Move everything allocated so far (modules, schemas, the registry) out of the garbage
    collector's view: a long-running server otherwise rescans it on every full collection."""
    gc.collect()
    gc.freeze()


def event_loop_options(transport: Literal["stdio", "http"]) -> dict[str, Any]:
    """The ``backend_options`` for the ``anyio.run`` that serves ``transport``: uvloop for HTTP
    when it is installed (the ``mcp`` extra installs it: uvicorn answering a trivial request
    costs about a third less CPU on it, 56 µs instead of 84 here), the standard loop
    otherwise and for stdio (whose transport reads stdin in a thread either way).

    ```python
    anyio.run(serve_registry, registry, backend_options=event_loop_options("http"))
    ```
    """
    if transport != "http" or importlib.util.find_spec("uvloop") is None:
        return {}
    return {"use_uvloop": True}


def create_http_app(
    registry: ToolRegistry, options: ServeOptions | None = None, *, host: str = DEFAULT_HTTP_HOST
) -> ASGIApp:
    """The streamable HTTP ASGI app (endpoint ``/mcp``); DNS-rebinding protection on localhost.

    Sessions are bounded by ``options.session_idle_timeout_s`` and ``options.max_sessions``,
    and a client that disconnects aborts its calls.
    """
    from toolwire.mcp.server._http_endpoint import create_http_endpoint

    return create_http_endpoint(registry, options, host=host).app


async def serve_http(
    registry: ToolRegistry,
    options: ServeOptions | None = None,
    *,
    host: str = DEFAULT_HTTP_HOST,
    port: int = DEFAULT_HTTP_PORT,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``registry`` over streamable HTTP at ``http://host:port/mcp`` until cancelled.

    Cancelling stops the server gracefully: it stops accepting, aborts the calls in flight,
    closes every session, gives open connections up to `SHUTDOWN_GRACE_S` to finish, and
    returns (raising the cancellation) once uvicorn has shut down.

    Args:
        registry: The tools.
        options: Name, budget, presenter, session limits.
        host: Interface to bind (``127.0.0.1`` by default; anything else is reachable from
            other machines and is refused unless ``options.auth`` is set, or
            ``options.insecure_no_auth``).
        port: TCP port; ``0`` picks a free one.
        on_ready: Called with the endpoint URL (with the real port) once accepting.
    """
    import uvicorn

    from toolwire.mcp.server._http_endpoint import create_http_endpoint

    check_served_exposure(host, options)
    endpoint = create_http_endpoint(registry, options, host=host)
    _freeze_startup_objects()
    sock = _bind(host, port)
    bound_port = sock.getsockname()[1]
    config = uvicorn.Config(
        endpoint.app,
        http=http_protocol(),  # one write per answer (toolwire.mcp.server.fast_http.coalesce)
        log_level="warning",
        lifespan="on",
        access_log=False,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
    )
    server = _uvicorn_server(config)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound_port}/mcp"
    finished = anyio.Event()

    async def run() -> None:
        # Stopped by `should_exit`, never cancelled midway: that would skip closing the
        # listener, the connections and the lifespan (where the sessions live).
        with anyio.CancelScope(shield=True):
            try:
                await server.serve(sockets=[sock])
            finally:
                finished.set()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(run)
            try:
                while not server.started and not finished.is_set():
                    await anyio.sleep(0.01)
                if server.started and on_ready is not None:
                    on_ready(url)
                await finished.wait()
            finally:
                server.should_exit = True
                endpoint.stop(_STOPPING)
    finally:
        sock.close()


def check_served_exposure(host: str, options: ServeOptions | None) -> None:
    """Refuse a non-loopback ``host`` without ``options.auth`` (unless
    ``options.insecure_no_auth``, which is logged as a warning).

    Raises:
        ConfigurationError: the address is reachable from other machines and nobody would be
            asked who they are.
    """
    from toolwire.mcp.server.auth._exposure import check_exposure

    opts = options or ServeOptions()
    warning = check_exposure(
        host, authenticated=opts.auth is not None, insecure_no_auth=opts.insecure_no_auth
    )
    if warning is not None:
        logger.warning("%s", warning)


def _uvicorn_server(config: uvicorn.Config) -> uvicorn.Server:
    """A uvicorn server that leaves signals alone (it would otherwise handle SIGTERM and
    SIGINT itself, then re-raise them after its shutdown, killing the process before whoever
    serves has cleaned up)."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return Server(config)


def _bind(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        raise ConfigurationError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock


async def serve_registry(
    registry: ToolRegistry,
    *,
    transport: Literal["stdio", "http"] = "stdio",
    host: str = DEFAULT_HTTP_HOST,
    port: int = DEFAULT_HTTP_PORT,
    options: ServeOptions | None = None,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``registry`` over ``transport`` (see `serve_stdio` and `serve_http`)."""
    if transport == "stdio":
        if on_ready is not None:
            on_ready("stdio")
        await serve_stdio(registry, options)
    elif transport == "http":
        await serve_http(registry, options, host=host, port=port, on_ready=on_ready)
    else:
        raise ConfigurationError(f"transport must be 'stdio' or 'http', got {transport!r}")
