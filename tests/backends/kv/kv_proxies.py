"""A network that goes silent: a TCP proxy on 127.0.0.1 in front of a real server.

Until `SilenceableProxy.go_silent` it forwards every byte both ways, so a driver speaks its
real wire protocol to the real server. Afterwards it still accepts connections and keeps the
open ones open, but forwards nothing more in either direction: to the client, the server and
the network between them have stopped answering (a dropped route, a hung server), and no error
ever comes back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import anyio
from anyio.abc import ByteStream, SocketStream


class SilenceableProxy:
    """Forwards connections to ``upstream_host:upstream_port`` until told to go silent."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self._upstream = (upstream_host, upstream_port)
        self._silent = anyio.Event()
        self.port = 0

    def go_silent(self) -> None:
        """Stop forwarding; connections stay open and new ones are accepted, never answered."""
        self._silent.set()

    async def handle(self, client: SocketStream) -> None:
        """Serve one client connection until either side closes it (or forever, once silent)."""
        async with client:
            if self._silent.is_set():
                await anyio.sleep_forever()
            async with (
                await anyio.connect_tcp(*self._upstream) as server,
                anyio.create_task_group() as tg,
            ):
                tg.start_soon(self._pump, client, server, tg.cancel_scope)
                tg.start_soon(self._pump, server, client, tg.cancel_scope)

    async def _pump(self, source: ByteStream, sink: ByteStream, scope: anyio.CancelScope) -> None:
        with suppress(anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
            async for chunk in source:
                if self._silent.is_set():
                    await anyio.sleep_forever()
                await sink.send(chunk)
        scope.cancel()  # one side hung up: close both


@asynccontextmanager
async def silenceable_proxy(host: str, port: int) -> AsyncIterator[SilenceableProxy]:
    """A running proxy to ``host:port`` on a free loopback port (`SilenceableProxy.port`)."""
    proxy = SilenceableProxy(host, port)
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    proxy.port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, proxy.handle)
        try:
            yield proxy
        finally:
            tg.cancel_scope.cancel()
