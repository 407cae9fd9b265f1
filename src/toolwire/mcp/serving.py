"""Where a served registry listens: stdio, or streamable HTTP on a socket we bind ourselves."""

from __future__ import annotations

import gc
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import anyio

from toolwire.errors import ConfigurationError
from toolwire.mcp.server import (
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    ServeOptions,
    create_mcp_server,
)

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from toolwire.registry import ToolRegistry

__all__ = ["create_http_app", "serve_http", "serve_registry", "serve_stdio"]


async def serve_stdio(registry: ToolRegistry, options: ServeOptions | None = None) -> None:
    """Serve ``registry`` on this process's stdin/stdout until the client disconnects."""
    from mcp.server.stdio import stdio_server

    server = create_mcp_server(registry, options)
    _freeze_startup_objects()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def _freeze_startup_objects() -> None:
    """Move everything allocated so far (modules, schemas, the registry) out of the garbage
    collector's view: a long-running server otherwise rescans it on every full collection."""
    gc.collect()
    gc.freeze()


def create_http_app(
    registry: ToolRegistry, options: ServeOptions | None = None, *, host: str = DEFAULT_HTTP_HOST
) -> Starlette:
    """The streamable HTTP ASGI app (endpoint ``/mcp``); DNS-rebinding protection on localhost."""
    server = create_mcp_server(registry, options)
    return server.streamable_http_app(host=host)


async def serve_http(
    registry: ToolRegistry,
    options: ServeOptions | None = None,
    *,
    host: str = DEFAULT_HTTP_HOST,
    port: int = DEFAULT_HTTP_PORT,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``registry`` over streamable HTTP at ``http://host:port/mcp`` until cancelled.

    Args:
        registry: The tools.
        options: Name, budget, presenter.
        host: Interface to bind (``127.0.0.1`` by default; anything else is reachable from
            other machines, so put authentication in front of it).
        port: TCP port; ``0`` picks a free one.
        on_ready: Called with the endpoint URL (with the real port) once accepting.
    """
    import uvicorn

    app = create_http_app(registry, options, host=host)
    _freeze_startup_objects()
    sock = _bind(host, port)
    bound_port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound_port}/mcp"

    async def announce() -> None:
        while not server.started:
            await anyio.sleep(0.01)
        if on_ready is not None:
            on_ready(url)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(announce)
            await server.serve(sockets=[sock])
            group.cancel_scope.cancel()
    finally:
        sock.close()


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
