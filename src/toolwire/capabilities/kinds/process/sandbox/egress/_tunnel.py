"""``CONNECT host:port``: a checked, pinned TCP tunnel (no TLS interception)."""

from __future__ import annotations

import anyio
import h11
from anyio.abc import SocketStream

from toolwire.capabilities.kinds.network._policy import CheckedDestination
from toolwire.capabilities.kinds.network._refusals import PolicyRefusal
from toolwire.capabilities.kinds.network._urls import parse_authority
from toolwire.capabilities.kinds.process.sandbox.egress._answers import (
    log_allowed,
    log_refused,
    send_error,
)
from toolwire.capabilities.kinds.process.sandbox.egress._client import ClientConnection
from toolwire.capabilities.kinds.process.sandbox.egress._context import ListenerContext
from toolwire.capabilities.kinds.process.sandbox.egress._splice import splice

__all__ = ["connect_pinned", "tunnel"]


async def connect_pinned(checked: CheckedDestination, timeout_s: float) -> SocketStream:
    """Connect to the first validated address that accepts (never a fresh DNS lookup).

    Raises:
        TimeoutError: no address accepted within ``timeout_s`` (all tries together).
        OSError: every address refused or failed.
    """
    failure: BaseException | None = None
    with anyio.fail_after(timeout_s):
        for address in checked.addresses:
            try:
                return await anyio.connect_tcp(address, checked.destination.port)
            except OSError as exc:
                failure = exc
    raise OSError(f"no validated address accepted the connection ({failure})")


async def _checked(
    client: ClientConnection, request: h11.Request, ctx: ListenerContext
) -> CheckedDestination | None:
    host, port = "", None
    try:
        if not request.target.isascii():
            raise PolicyRefusal("malformed authority (not ASCII)", "malformed-url")
        destination = parse_authority(request.target.decode("ascii"))
        host, port = destination.host, destination.port
        checked = await ctx.check(destination)
    except PolicyRefusal as refusal:
        log_refused(ctx.name, "CONNECT", host, port, refusal.code, refusal.reason)
        await send_error(client.stream, refusal.code, refusal.reason)
        return None
    try:
        with anyio.fail_after(ctx.limits.idle_timeout_s):
            end = await client.next_event()
    except (h11.RemoteProtocolError, TimeoutError):
        end = None
    if not isinstance(end, h11.EndOfMessage):
        await send_error(client.stream, "malformed-request", "a CONNECT request has no body")
        return None
    log_allowed(ctx.name, "CONNECT", host, checked.destination.port, checked.addresses)
    return checked


async def tunnel(client: ClientConnection, request: h11.Request, ctx: ListenerContext) -> None:
    """Answer a ``CONNECT``: check it, connect, say ``200``, then relay bytes both ways."""
    checked = await _checked(client, request, ctx)
    if checked is None:
        return
    host = checked.destination.host
    try:
        upstream = await connect_pinned(checked, ctx.limits.connect_timeout_s)
    except TimeoutError:
        await send_error(client.stream, "upstream-timeout", f"'{host}' did not answer in time")
        return
    except OSError as exc:
        await send_error(client.stream, "upstream-failed", f"'{host}' failed: {exc}")
        return
    async with upstream:
        try:
            await client.send(
                h11.Response(status_code=200, headers=[], reason=b"Connection established")
            )
            leftover, _ = client.conn.trailing_data
            if leftover:
                await upstream.send(leftover)
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return
        limits = ctx.limits
        await splice(
            client.stream, upstream, idle_s=limits.idle_timeout_s, chunk=limits.chunk_bytes
        )
