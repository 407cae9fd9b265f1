"""The client side of a proxy connection: h11 parsing over an anyio byte stream."""

from __future__ import annotations

import re

import anyio
import h11
from anyio.abc import ByteStream

__all__ = ["ClientConnection", "protocol_error_reason"]

_QUOTED_BYTES = re.compile(r"\s(?:bytearray\()?b['\"]")
_GONE = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)


def protocol_error_reason(exc: h11.ProtocolError) -> str:
    """h11's reason without the bytes it quotes (a request line can carry a secret query)."""
    text = _QUOTED_BYTES.split(str(exc), maxsplit=1)[0]
    return text.rstrip(" :")[:120] or "not HTTP/1.1"


class ClientConnection:
    """A client speaking HTTP/1.1 to the proxy, parsed by h11 (a strict, sans-IO parser).

    h11 refuses what would let two readers disagree on a request's bounds (conflicting
    ``Content-Length`` values, a ``Transfer-Encoding`` other than ``chunked``, bad chunk sizes,
    several ``Host`` headers or none) and caps how much it buffers. What it reads leniently
    (bare ``LF`` line ends, folded header lines) never reaches an upstream as written: the
    proxy builds every forwarded request afresh.

    Args:
        stream: The accepted connection.
        max_header_bytes: The largest request head h11 buffers (then ``RemoteProtocolError``
            with ``error_status_hint`` 431).
        chunk_bytes: The most bytes read from the client at once.
    """

    def __init__(self, stream: ByteStream, *, max_header_bytes: int, chunk_bytes: int) -> None:
        self.stream = stream
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=max_header_bytes)
        self._chunk_bytes = chunk_bytes
        self.received = 0
        """Bytes received since the current request cycle began."""

    async def next_event(self) -> h11.Event | type[h11.PAUSED]:
        """The client's next event, reading from the socket as h11 needs.

        A client that hangs up or resets reads as end of data (h11 then reports
        ``ConnectionClosed``, or a ``RemoteProtocolError`` in the middle of a request).

        Raises:
            h11.RemoteProtocolError: the client sent something that is not HTTP/1.1.
        """
        while True:
            event = self.conn.next_event()
            if event is not h11.NEED_DATA:
                return event  # type: ignore[return-value]  # h11 types sentinels loosely
            try:
                data = await self.stream.receive(self._chunk_bytes)
            except _GONE:
                data = b""
            self.received += len(data)
            self.conn.receive_data(data)

    async def send(self, event: h11.Event) -> None:
        """Frame ``event`` with h11 and write it.

        Raises:
            h11.LocalProtocolError: the event is not valid here (a bad upstream header).
            anyio.BrokenResourceError: the client is gone.
        """
        data = self.conn.send(event)
        if data:
            await self.stream.send(data)

    def start_next_cycle(self) -> bool:
        """Reset for the next request on a kept-alive connection; False when it must close."""
        if self.conn.our_state is not h11.DONE or self.conn.their_state is not h11.DONE:
            return False
        self.conn.start_next_cycle()
        self.received = 0
        return True
