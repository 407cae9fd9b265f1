"""Client transports for `McpProvider`: stdio and streamable HTTP, with a dropped-link watch.

Both are the official SDK transports; what this module adds is a read stream that sets an
event when the server's side ends (a stdio server exiting, a stream torn down), so the provider
learns of the drop at once instead of at the next call.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, TextIO

import anyio

from toolwire.mcp._read_streams import ForwardingReadStream

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams
    from mcp.shared._stream_protocols import ReadStream
    from mcp.shared.message import SessionMessage

    from toolwire.mcp._settings import McpServerConfig

__all__ = ["open_transport"]


class _WatchedReadStream(ForwardingReadStream):
    """Forwards a transport's read stream and sets ``ended`` when it ends or breaks."""

    ENDS = (anyio.EndOfStream, anyio.ClosedResourceError)

    def __init__(self, inner: ReadStream[SessionMessage | Exception], ended: anyio.Event) -> None:
        super().__init__(inner)
        self._ended = ended

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._ended.set()
            raise

    async def aclose(self) -> None:
        self._ended.set()
        await self._inner.aclose()


@asynccontextmanager
async def open_transport(
    config: McpServerConfig, ended: anyio.Event, *, errlog: TextIO | None = None
) -> AsyncIterator[TransportStreams]:
    """Open the transport ``config`` names; ``ended`` is set when the server's side ends.

    Args:
        config: The server to reach (``command`` for stdio, ``url`` for streamable HTTP).
        ended: Set when the read side ends (the stdio process exited, the link broke).
        errlog: Where a stdio server's stderr goes (``sys.stderr`` by default).
    """
    if config.command is not None:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=config.command,
            args=list(config.args),
            env=dict(config.env) if config.env is not None else None,
            cwd=config.cwd,
        )
        async with stdio_client(params, errlog=errlog or sys.stderr) as (read, write):
            yield _WatchedReadStream(read, ended), write
        return
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    assert config.url is not None
    timeout = httpx2.Timeout(config.connect_timeout_s, read=max(config.timeout_s, 30.0) + 5.0)
    async with (
        httpx2.AsyncClient(headers=dict(config.headers or {}), timeout=timeout) as http,
        streamable_http_client(config.url, http_client=http) as (read, write),
    ):
        yield _WatchedReadStream(read, ended), write
