"""The SDK stdio server's streams, holding stdin's end back until its requests are answered.

The SDK's dispatcher cancels every request still in flight the moment its read stream ends, so a
``tools/call`` written just before the client closed stdin was never answered. `graceful_streams`
wraps the stream pair `mcp.server.stdio.stdio_server` gives: the read side counts the requests the
server receives (less those the client cancels, which are never answered) and the write side counts
the answers it sends; at stdin's end the read side passes the end on only once every request has its
answer or the grace of `StdinEnd` is over (the dispatcher then aborts what is left and answers it
``Connection closed``). Used after a handover (`toolwire.mcp.server.fast_stdio._handover`) and when
the SDK serves stdio from the start (`toolwire.mcp.server.serving.serve_stdio`). The SDK is imported
by the caller, not here.

A call waiting on its client then (sampling, elicitation) waits out the grace: nobody can
answer it.
"""

from __future__ import annotations

from collections import Counter
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from toolwire.mcp._read_streams import ForwardingReadStream

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream
    from mcp.shared.message import SessionMessage

    from toolwire.mcp.server.fast_stdio.grace import StdinEnd

__all__ = ["graceful_streams"]

_RequestId = int | str


def graceful_streams(
    read: ReadStream[SessionMessage | Exception], write: WriteStream[SessionMessage], end: StdinEnd
) -> tuple[_GracefulRead, _CountedWrite]:
    """``read`` and ``write`` for ``Server.run``, with stdin's end held back (module doc).

    Args:
        read: The transport's read stream (stdin's messages).
        write: The transport's write stream (stdout's).
        end: The deadline of the calls in flight when stdin ends.
    """
    unanswered = _Unanswered()
    return _GracefulRead(read, unanswered, end), _CountedWrite(write, unanswered)


class _Unanswered:
    """The requests the server has received and not yet answered."""

    def __init__(self) -> None:
        self._ids: Counter[_RequestId] = Counter()
        self._none = anyio.Event()
        self._none.set()

    def asked(self, request_id: _RequestId) -> None:
        self._ids[request_id] += 1
        if self._none.is_set():
            self._none = anyio.Event()

    def settled(self, request_id: _RequestId) -> None:
        if self._ids[request_id] <= 1:
            self._ids.pop(request_id, None)
        else:
            self._ids[request_id] -= 1
        if not self._ids:
            self._none.set()

    async def wait(self, end: StdinEnd) -> None:
        """Until every request is answered or the grace is over."""
        await end.wait_for(self._none)


class _GracefulRead(ForwardingReadStream):
    """The read stream: counts requests; holds stdin's end back (module doc)."""

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception], unanswered: _Unanswered, end: StdinEnd
    ) -> None:
        super().__init__(inner)
        self._unanswered = unanswered
        self._end = end

    async def receive(self) -> SessionMessage | Exception:
        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            await self._unanswered.wait(self._end)
            raise
        if not isinstance(item, Exception):
            _count(item.message, self._unanswered)
        return item


def _count(message: Any, unanswered: _Unanswered) -> None:
    if isinstance(message, JSONRPCRequest):
        unanswered.asked(message.id)
    elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
        target = (message.params or {}).get("requestId")
        if isinstance(target, int | str) and not isinstance(target, bool):
            unanswered.settled(target)  # a cancelled request is never answered


class _CountedWrite:
    """The write stream: counts the answers it has passed on."""

    def __init__(self, inner: WriteStream[SessionMessage], unanswered: _Unanswered) -> None:
        self._inner = inner
        self._unanswered = unanswered

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            self._unanswered.settled(message.id)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _CountedWrite:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None
