"""An httpx transport that connects only to addresses validated beforehand (DNS pinning).

Each request carries the addresses `check_url` validated in its ``extensions``; the transport
never resolves the host again, so a DNS answer that changes between the check and the
connection (rebinding) cannot redirect it. The URL's host is still used for the ``Host``
header, TLS SNI and certificate verification.

Connections are pooled per pinned address set (a connection to ``x.com`` via one address is
never reused for ``x.com`` pinned to another). Idle pools beyond ``max_pools`` are closed.
"""

from __future__ import annotations

import ssl
from collections import OrderedDict
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field

import anyio
import httpcore
import httpx

from toolwire.capabilities.kinds.network._policy import CheckedUrl
from toolwire.capabilities.kinds.network._refusals import PolicyRefusal
from toolwire.errors import HostNotAllowedError

__all__ = ["PINNED_ADDRESSES", "PinnedNetworkBackend", "PinnedTransport", "pinned_request"]

PINNED_ADDRESSES = "toolwire.pinned_addresses"
"""The request extension holding the ``tuple[str, ...]`` of addresses to connect to."""


def pinned_request(
    checked: CheckedUrl,
    method: str,
    headers: httpx.Headers | Sequence[tuple[bytes, bytes]],
    content: bytes | AsyncIterable[bytes] | None,
) -> httpx.Request:
    """The request for a checked URL, carrying its validated addresses for `PinnedTransport`.

    The URL sent is the canonical one `check_url` validated; httpx sets ``Host`` from it.

    Raises:
        PolicyRefusal: ``malformed-url``: httpx cannot send the URL (too long, say) or reads
            its host differently. The message names the host, never the path or query.
    """
    parsed = checked.parsed
    try:
        request = httpx.Request(
            method,
            parsed.url,
            headers=headers,
            content=content,
            extensions={PINNED_ADDRESSES: checked.addresses},
        )
    except httpx.InvalidURL as exc:  # e.g. longer than httpx sends; never echoes the path
        raise PolicyRefusal(
            f"the URL for '{parsed.host}' cannot be sent: {exc}", "malformed-url"
        ) from exc
    if request.url.raw_host.decode("ascii").lower() != parsed.host:
        raise PolicyRefusal(
            f"host '{parsed.host}' does not survive URL re-parsing", "malformed-url"
        )
    return request


class PinnedNetworkBackend(httpcore.AsyncNetworkBackend):
    """Connects to fixed addresses, whatever host name it is asked for, trying each in turn.

    Args:
        addresses: The validated IP addresses, in preference order.
    """

    def __init__(self, addresses: tuple[str, ...]) -> None:
        self._addresses = addresses
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Open a TCP stream to the first pinned address that accepts; ``host`` is ignored."""
        failure: Exception | None = None
        for address in self._addresses:
            try:
                return await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        raise failure or httpcore.ConnectError("no pinned address to connect to")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Always refused: a pinned fetch reaches TCP addresses only."""
        raise httpcore.ConnectError("unix sockets are not reachable through a pinned transport")

    async def sleep(self, seconds: float) -> None:
        """Sleep (used by httpcore between connection retries)."""
        await anyio.sleep(seconds)


@dataclass(kw_only=True, slots=True)
class _Pool:
    pool: httpcore.AsyncConnectionPool
    leases: int = field(default=0)


class _LeasedStream(httpx.AsyncByteStream):
    """A response body that returns its pool lease when closed."""

    def __init__(self, stream: httpcore.Response, entry: _Pool) -> None:
        self._response = stream
        self._entry: _Pool | None = entry

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._response.aiter_stream():
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._response.aclose()
        finally:
            if self._entry is not None:
                self._entry.leases -= 1
                self._entry = None


class PinnedTransport(httpx.AsyncBaseTransport):
    """Sends each request to the addresses pinned in its ``extensions``, and nowhere else.

    Args:
        ssl_context: Verifies servers against the URL's host name.
        max_pools: Idle connection pools kept (one per distinct pinned address set).
    """

    def __init__(self, *, ssl_context: ssl.SSLContext, max_pools: int = 32) -> None:
        self._ssl_context = ssl_context
        self._max_pools = max_pools
        self._pools: OrderedDict[tuple[str, ...], _Pool] = OrderedDict()

    async def _lease(self, addresses: tuple[str, ...]) -> _Pool:
        entry = self._pools.get(addresses)
        if entry is None:
            entry = _Pool(
                pool=httpcore.AsyncConnectionPool(
                    ssl_context=self._ssl_context,
                    max_connections=20,
                    max_keepalive_connections=10,
                    keepalive_expiry=5.0,
                    network_backend=PinnedNetworkBackend(addresses),
                )
            )
            self._pools[addresses] = entry
        self._pools.move_to_end(addresses)
        idle = [k for k, pool in self._pools.items() if pool.leases == 0 and k != addresses]
        for key in idle[: max(0, len(self._pools) - self._max_pools)]:
            await self._pools.pop(key).pool.aclose()
        entry.leases += 1
        return entry

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` over a connection to one of its pinned addresses.

        Raises:
            HostNotAllowedError: the request carries no pinned addresses (it did not come
                through `SafeFetcher`).
        """
        addresses = request.extensions.get(PINNED_ADDRESSES)
        if not isinstance(addresses, tuple) or not addresses:
            raise HostNotAllowedError(
                "HOST_NOT_ALLOWED: request has no validated address; send it through SafeFetcher"
            )
        entry = await self._lease(addresses)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,  # bytes, or a body streamed as it arrives
            extensions={k: v for k, v in request.extensions.items() if k != PINNED_ADDRESSES},
        )
        try:
            response = await entry.pool.handle_async_request(core_request)
        except BaseException:
            entry.leases -= 1
            raise
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_LeasedStream(response, entry),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        """Close every pooled connection."""
        pools = list(self._pools.values())
        self._pools.clear()
        for entry in pools:
            await entry.pool.aclose()
