"""`ForwardingReadStream`: an MCP read stream that forwards another, for wrappers to refine.

The SDK's sessions and dispatchers take a read stream: ``receive``, ``aclose``, async iteration,
``async with``, and the sender's contextvars snapshot (``last_context``) when the stream records
one. A wrapper that only changes what ``receive`` does (the client transports watch for the server's
end, `toolwire.mcp.client._transports`; the stdio server holds stdin's end back,
`toolwire.mcp.server.fast_stdio.sdk_streams`) subclasses this and overrides ``receive``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import anyio
from anyio.abc import AsyncResource

if TYPE_CHECKING:
    from typing import Self

    from mcp.shared._stream_protocols import ReadStream
    from mcp.shared.message import SessionMessage

__all__ = ["ForwardingReadStream"]


class ForwardingReadStream(AsyncResource):
    """Forwards every operation to ``inner``.

    Attributes:
        ENDS: What ``receive`` may raise that ends an ``async for`` over the stream.
    """

    ENDS: ClassVar[tuple[type[Exception], ...]] = (anyio.EndOfStream,)

    def __init__(self, inner: ReadStream[SessionMessage | Exception]) -> None:
        self._inner = inner

    @property
    def last_context(self) -> Any:
        """The sender's contextvars snapshot, when the inner stream records one."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        """The next message (or the exception the transport read) from ``inner``."""
        return await self._inner.receive()

    async def aclose(self) -> None:
        """Close ``inner``."""
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except self.ENDS:
            raise StopAsyncIteration from None
