"""Forwarding one absolute-form request (``GET http://host/path``) to its checked addresses.

The target goes through the shared network policy (`parse_url`, then `check_destination`)
and the request through `PinnedTransport`, as `SafeFetcher` sends its own: connected only to
the validated addresses, ``Host`` set from the checked URL. Hop-by-hop headers stop here; the
response is relayed as it comes (no decompression), framed for the client by h11.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

import anyio
import h11
import httpcore
import httpx

from toolwire.capabilities.kinds.network._exchange import TRANSPORT_ERRORS
from toolwire.capabilities.kinds.network._policy import CheckedUrl
from toolwire.capabilities.kinds.network._refusals import PolicyRefusal
from toolwire.capabilities.kinds.network._transport import pinned_request
from toolwire.capabilities.kinds.network._urls import parse_url
from toolwire.capabilities.kinds.process.sandbox.egress._answers import (
    log_allowed,
    log_refused,
    send_error,
)
from toolwire.capabilities.kinds.process.sandbox.egress._client import (
    ClientConnection,
    protocol_error_reason,
)
from toolwire.capabilities.kinds.process.sandbox.egress._context import ListenerContext
from toolwire.capabilities.kinds.process.sandbox.egress._headers import (
    ambiguous_framing,
    end_to_end,
    has_body,
)

__all__ = ["forward"]

_UPSTREAM_ERRORS = (*TRANSPORT_ERRORS, OSError, anyio.BrokenResourceError)
_CLIENT_GONE = (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)


class ClientBodyError(Exception):
    """The client's request body ended wrongly (bad framing, a hang-up, a stall)."""


async def _request_body(client: ClientConnection, idle_s: float) -> AsyncGenerator[bytes, None]:
    """The client's body, as it arrives (a ``100 Continue`` first when the client waits)."""
    if client.conn.they_are_waiting_for_100_continue:
        await client.send(h11.InformationalResponse(status_code=100, headers=[]))
    while True:
        try:
            with anyio.fail_after(idle_s):
                event = await client.next_event()
        except h11.RemoteProtocolError as exc:
            reason = protocol_error_reason(exc)
            raise ClientBodyError(f"the request body is malformed ({reason})") from exc
        except TimeoutError as exc:
            raise ClientBodyError(f"the request body stalled for {idle_s:g}s") from exc
        if isinstance(event, h11.Data):
            yield bytes(event.data)
        elif isinstance(event, h11.EndOfMessage):
            return
        else:
            raise ClientBodyError("the client closed its connection inside the request body")


async def _end_of_request(client: ClientConnection, idle_s: float) -> bool:
    """Read a bodiless request's end; False when the client broke off."""
    try:
        with anyio.fail_after(idle_s):
            return isinstance(await client.next_event(), h11.EndOfMessage)
    except (h11.RemoteProtocolError, TimeoutError):
        return False


async def _check(
    client: ClientConnection, request: h11.Request, ctx: ListenerContext
) -> CheckedUrl | None:
    """The checked target, or None once the refusal has been answered and logged."""
    method = request.method.decode("ascii", errors="replace")
    head_only = method == "HEAD"
    target = request.target.decode("ascii", errors="replace")
    if target.startswith("/") or target == "*":
        reason = "this is a proxy: send GET http://host/path (absolute form) or CONNECT host:port"
        log_refused(ctx.name, method, "", None, "not-a-proxy-request", reason)
        await send_error(client.stream, "not-a-proxy-request", reason, head_only=head_only)
        return None
    host, port = "", None
    try:
        if not request.target.isascii():
            raise PolicyRefusal("malformed URL (not ASCII; percent-encode it)", "malformed-url")
        parsed = parse_url(target)
        host, port = parsed.host, parsed.port
        checked = await ctx.check(parsed.destination)
    except PolicyRefusal as refusal:
        log_refused(ctx.name, method, host, port, refusal.code, refusal.reason)
        await send_error(client.stream, refusal.code, refusal.reason, head_only=head_only)
        return None
    log_allowed(ctx.name, method, host, parsed.port, checked.addresses)
    return CheckedUrl(parsed=parsed, addresses=checked.addresses)


async def _open(
    client: ClientConnection,
    request: h11.Request,
    checked: CheckedUrl,
    ctx: ListenerContext,
    body: AsyncGenerator[bytes, None] | None,
) -> httpx.Response | None:
    """Send the request upstream; None once a failure has been answered."""
    limits = ctx.limits
    method = request.method.decode("ascii")
    if body is None and not await _end_of_request(client, limits.idle_timeout_s):
        return None
    headers = end_to_end(request.headers, request=True)
    host, head_only = checked.parsed.host, method == "HEAD"
    try:
        upstream = pinned_request(checked, method, headers, body)
        upstream.extensions["timeout"] = {
            "connect": limits.connect_timeout_s,
            "read": limits.response_timeout_s,
            "write": limits.response_timeout_s,
            "pool": limits.connect_timeout_s,
        }
        return await ctx.transport.handle_async_request(upstream)
    except PolicyRefusal as refusal:
        log_refused(ctx.name, method, host, checked.parsed.port, refusal.code, refusal.reason)
        await send_error(client.stream, refusal.code, refusal.reason, head_only=head_only)
    except ClientBodyError as exc:
        await send_error(client.stream, "malformed-request", str(exc))
    except httpcore.TimeoutException:
        reason = f"'{host}' did not answer in time"
        await send_error(client.stream, "upstream-timeout", reason, head_only=head_only)
    except _UPSTREAM_ERRORS as exc:
        reason = f"'{host}' failed: {type(exc).__name__}"
        await send_error(client.stream, "upstream-failed", reason, head_only=head_only)
    return None


async def _relay(client: ClientConnection, response: httpx.Response) -> bool:
    """Relay the upstream response; True when the connection may serve another request."""
    reason = response.extensions.get("reason_phrase", b"")
    headers = end_to_end(response.headers.raw, request=False)
    try:
        head = h11.Response(status_code=response.status_code, headers=headers, reason=reason)
        await client.send(head)
    except h11.LocalProtocolError as exc:  # a status or header h11 will not frame
        await send_error(client.stream, "upstream-failed", f"unusable upstream response: {exc}")
        return False
    except _CLIENT_GONE:
        return False
    try:
        async for chunk in response.aiter_raw():
            await client.send(h11.Data(data=chunk))
        await client.send(h11.EndOfMessage())
    except (*_UPSTREAM_ERRORS, *_CLIENT_GONE, httpcore.TimeoutException, h11.LocalProtocolError):
        return False  # the head is gone already: closing is the only signal left
    return True


async def forward(client: ClientConnection, request: h11.Request, ctx: ListenerContext) -> bool:
    """Check, send and relay one request; True when the connection may be kept alive."""
    if ambiguous_framing(request.headers):
        reason = "a request may not carry both Content-Length and Transfer-Encoding"
        log_refused(ctx.name, "", "", None, "malformed-request", reason)
        await send_error(client.stream, "malformed-request", reason)
        return False
    checked = await _check(client, request, ctx)
    if checked is None:
        return False
    idle_s = ctx.limits.idle_timeout_s
    body = _request_body(client, idle_s) if has_body(request.headers) else None
    try:
        response = await _open(client, request, checked, ctx, body)
        if response is None:
            return False
        try:
            return await _relay(client, response)
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
    finally:
        if body is not None:  # an upstream that failed mid-body leaves it suspended
            with anyio.CancelScope(shield=True):
                await body.aclose()
