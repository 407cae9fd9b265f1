"""One socket write per answer: uvicorn's httptools protocol with its writes coalesced.

uvicorn writes an answer's head when the app sends ``http.response.start`` and its body at
``http.response.body``: two ``send`` system calls, two TCP segments, for every fast-path
answer (about an eighth of the server's CPU per call in a profile under load). The protocol
here hands uvicorn's request cycles a transport that gathers what is written during one turn
of the event loop and writes it at the end of that turn, as one buffer: an answer sent head
and body in one go leaves in one write, and a streamed one (an SSE stream's head, then its
events as they come) still leaves as each part is sent, one loop turn later at most.

Whatever else touches the transport sees the writes first (closing, aborting, switching
protocol, ``write_eof``, the write buffer's size), so ordering, ``Connection: close`` answers
and backpressure (the real transport still pauses and resumes the protocol) behave as before.

``TOOLWIRE_MCP_HTTP_COALESCE=0`` keeps uvicorn's own protocol; without ``httptools`` uvicorn
picks its default.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["COALESCE_ENV", "CoalescingTransport", "coalesce_enabled"]

COALESCE_ENV: Final = "TOOLWIRE_MCP_HTTP_COALESCE"
"""Set to ``0`` to serve HTTP with uvicorn's own httptools protocol (two writes per answer)."""


def coalesce_enabled() -> bool:
    """Whether answers' writes are coalesced (unless ``TOOLWIRE_MCP_HTTP_COALESCE=0``)."""
    return os.environ.get(COALESCE_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


class CoalescingTransport(asyncio.Transport):
    """A transport that writes what one loop turn wrote to ``transport`` as one buffer.

    The first `write` of a turn schedules the flush (``loop.call_soon``); every method that
    closes, aborts, hands the connection on or asks about the write buffer flushes first, and
    the rest is the wrapped transport's.

    Args:
        transport: The connection's real transport.
        loop: The loop that runs the connection.
    """

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes | bytearray | memoryview] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Keep ``data`` for this turn's single write."""
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data)

    def writelines(self, list_of_data: Iterable[bytes | bytearray | memoryview]) -> None:
        """Keep every buffer of ``list_of_data`` for this turn's single write."""
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Write what this turn kept, as one buffer (nothing when it was flushed already)."""
        pending = self._pending
        if not pending:
            return
        self._pending = []
        if self._transport.is_closing():
            return  # the connection is gone: the answer has nobody to reach
        self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        """Write what is kept, then close (the real transport drains its buffer first)."""
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        """Drop what is kept and abort the connection at once."""
        self._pending = []
        self._transport.abort()

    def write_eof(self) -> None:
        """Write what is kept, then close the write side."""
        self.flush()
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        """Whether the real transport can close its write side."""
        return self._transport.can_write_eof()

    def is_closing(self) -> bool:
        """Whether the real transport is closing or closed."""
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """The real transport's extra information (``peername``, ``socket``, ``sslcontext``)."""
        return self._transport.get_extra_info(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        """Write what is kept, then hand the connection to ``protocol`` (a WebSocket upgrade)."""
        self.flush()
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        """The real transport's protocol."""
        return self._transport.get_protocol()

    def pause_reading(self) -> None:
        """Stop reading from the connection."""
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        """Read from the connection again."""
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        """Whether the real transport is reading."""
        return self._transport.is_reading()

    def get_write_buffer_size(self) -> int:
        """The real transport's buffered bytes, once what is kept is written."""
        self.flush()
        return self._transport.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        """The real transport's flow-control water marks."""
        return self._transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        """Set the real transport's flow-control water marks."""
        self._transport.set_write_buffer_limits(high, low)
