"""One client connection: read requests, tunnel a ``CONNECT``, forward the rest.

A connection serves requests one after another (keep-alive) until the client or an upstream
asks to close, a request is refused or fails (every answer the proxy makes up closes the
connection), or it goes idle. A ``CONNECT`` turns the connection into a tunnel for good.
"""

from __future__ import annotations

import anyio
import h11
from anyio.abc import ByteStream

from toolwire.capabilities.kinds.process.sandbox.egress._answers import (
    ProxyCode,
    log_refused,
    send_error,
)
from toolwire.capabilities.kinds.process.sandbox.egress._client import (
    ClientConnection,
    protocol_error_reason,
)
from toolwire.capabilities.kinds.process.sandbox.egress._context import ListenerContext
from toolwire.capabilities.kinds.process.sandbox.egress._forward import forward
from toolwire.capabilities.kinds.process.sandbox.egress._tunnel import tunnel

__all__ = ["serve_connection"]


async def _next_request(client: ClientConnection, ctx: ListenerContext) -> h11.Request | None:
    """The next request head, or None once the connection is to end (errors answered)."""
    try:
        with anyio.fail_after(ctx.limits.idle_timeout_s):
            event = await client.next_event()
    except TimeoutError:
        if client.received:
            reason = f"no complete request head within {ctx.limits.idle_timeout_s:g}s"
            await send_error(client.stream, "request-timeout", reason)
        return None
    except h11.RemoteProtocolError as exc:
        too_large = exc.error_status_hint == 431
        code: ProxyCode = "header-too-large" if too_large else "malformed-request"
        reason = (
            f"the request head is larger than {ctx.limits.max_header_bytes} bytes"
            if too_large
            else f"malformed request: {protocol_error_reason(exc)}"
        )
        log_refused(ctx.name, "", "", None, code, reason)
        await send_error(client.stream, code, reason)
        return None
    if not isinstance(event, h11.Request):
        return None
    if event.http_version not in (b"1.0", b"1.1"):
        reason = "only HTTP/1.0 and HTTP/1.1 are spoken here"
        log_refused(ctx.name, "", "", None, "malformed-request", reason)
        await send_error(client.stream, "malformed-request", reason)
        return None
    return event


async def serve_connection(stream: ByteStream, ctx: ListenerContext) -> None:
    """Serve one accepted client connection until it ends; never raises for what it sent."""
    limits = ctx.limits
    client = ClientConnection(
        stream, max_header_bytes=limits.max_header_bytes, chunk_bytes=limits.chunk_bytes
    )
    while True:
        request = await _next_request(client, ctx)
        if request is None:
            return
        if request.method == b"CONNECT":
            await tunnel(client, request, ctx)
            return
        if not await forward(client, request, ctx) or not client.start_next_cycle():
            return
