"""`HttpExchange`: the httpx half of `toolwire.capabilities.kinds.network._fetcher.SafeFetcher`.

`SafeFetcher` decides what may be fetched (every hop checked, pinned, redirects followed by
its rules); this module sends a checked request and reads its body, on httpx and httpcore.
`SafeFetcher` imports it on its first fetch, so a process that never fetches never loads
httpx, httpcore and what they import (about 0.3 s of a ``toolwire serve --stdio`` start).
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping

import httpcore
import httpx

from toolwire.capabilities.kinds.network._policy import CheckedUrl
from toolwire.capabilities.kinds.network._transport import PinnedTransport, pinned_request

__all__ = ["TRANSPORT_ERRORS", "HttpExchange"]

TRANSPORT_ERRORS = (
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpx.HTTPError,
)
"""What httpx and httpcore raise when a connection or an HTTP exchange fails."""


class HttpExchange:
    """Sends checked requests over one pinned connection pool.

    Args:
        ssl_context: Server verification; ``None``: certifi's CAs (and ``SSL_CERT_FILE``).
    """

    def __init__(self, ssl_context: ssl.SSLContext | None) -> None:
        self._transport = PinnedTransport(ssl_context=ssl_context or httpx.create_ssl_context())

    @staticmethod
    def headers(defaults: Mapping[str, str]) -> httpx.Headers:
        """A request's headers, starting from ``defaults`` (case-insensitive)."""
        return httpx.Headers(defaults)

    async def send(
        self, checked: CheckedUrl, method: str, headers: httpx.Headers, content: bytes | None
    ) -> httpx.Response:
        """Send one hop to the addresses ``checked`` validated; its body is not read yet.

        Raises:
            TimeoutError: the exchange timed out.
            OSError: the connection or the HTTP exchange failed.
        """
        parsed = checked.parsed
        request = pinned_request(checked, method, headers, content)
        try:
            return await self._transport.handle_async_request(request)
        except httpcore.TimeoutException as exc:
            raise TimeoutError(f"fetch from '{parsed.host}' timed out: {exc}") from exc
        except TRANSPORT_ERRORS as exc:
            raise OSError(f"fetch from '{parsed.host}' failed: {_describe(exc)}") from exc

    @staticmethod
    async def read_capped(
        response: httpx.Response, checked: CheckedUrl, limit: int
    ) -> tuple[bytes, bool]:
        """The decoded body, at most ``limit`` bytes, and whether it was cut.

        Raises:
            TimeoutError: reading timed out.
            OSError: the connection failed while reading.
        """
        chunks: list[bytes] = []
        room = limit
        try:
            async for chunk in response.aiter_bytes():
                if len(chunk) > room:
                    chunks.append(chunk[:room])
                    return b"".join(chunks), True
                chunks.append(chunk)
                room -= len(chunk)
        except httpcore.TimeoutException as exc:
            raise TimeoutError(f"reading from '{checked.parsed.host}' timed out") from exc
        except TRANSPORT_ERRORS as exc:
            raise OSError(f"reading from '{checked.parsed.host}' failed: {_describe(exc)}") from exc
        return b"".join(chunks), False

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._transport.aclose()


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
