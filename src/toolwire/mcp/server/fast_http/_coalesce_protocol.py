"""`CoalescingHttpToolsProtocol`: uvicorn's httptools protocol writing through a
`toolwire.mcp.server.fast_http.coalesce.CoalescingTransport` (one write per answer; see that
module)."""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from toolwire.mcp.server.fast_http.coalesce import CoalescingTransport

__all__ = ["CoalescingHttpToolsProtocol"]


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol whose request cycles write through a coalescing transport.

    Flow control and the connection's addresses stay on the real transport; everything uvicorn
    writes or closes (answers, ``400``/``100 Continue``, keep-alive timeouts, shutdown) goes
    through the wrapper, so it leaves in order.
    """

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        """Set the connection up as uvicorn does, then write through the wrapper."""
        super().connection_made(transport)
        self.transport = CoalescingTransport(transport, self.loop)
