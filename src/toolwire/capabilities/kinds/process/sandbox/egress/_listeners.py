"""A listener of the egress proxy: a Unix or loopback TCP socket with its own policy."""

from __future__ import annotations

import contextlib
import os
import stat

import anyio
from anyio.abc import ByteStream, SocketListener, TaskStatus

from toolwire.capabilities.kinds.process.sandbox.egress._answers import logger, send_error
from toolwire.capabilities.kinds.process.sandbox.egress._connection import serve_connection
from toolwire.capabilities.kinds.process.sandbox.egress._context import ListenerContext

__all__ = ["EgressListener"]


LINGER_S = 2.0
"""How long a closing connection reads and drops what the client still sends (see `_linger`)."""
LINGER_BYTES = 64 * 1024 * 1024


async def _linger(stream: ByteStream, chunk: int) -> None:
    """Close gently: end our side, then drop what the client still sends, for a while.

    Closing a socket with unread input makes the kernel reset the connection, which can
    destroy an answer the client has not read yet (a ``502`` to a client still uploading).
    """
    dropped = 0
    with anyio.move_on_after(LINGER_S):
        try:
            await stream.send_eof()
            while dropped < LINGER_BYTES:
                dropped += len(await stream.receive(chunk))
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass


class EgressListener:
    """One socket the proxy accepts clients on, under one policy.

    Closing it (`aclose`) stops accepting and ends every connection and tunnel it opened.
    Create it with `EgressProxy.serve_unix` or `EgressProxy.serve_tcp`.

    Attributes:
        path: The Unix socket's path (``None`` for a TCP listener).
        address: ``(host, port)`` of a TCP listener (``None`` for a Unix one).
    """

    def __init__(
        self,
        listener: SocketListener,
        ctx: ListenerContext,
        *,
        path: str | None = None,
        address: tuple[str, int] | None = None,
    ) -> None:
        self.path = path
        self.address = address
        self._listener = listener
        self._ctx = ctx
        self._scope = anyio.CancelScope()
        self._finished = anyio.Event()
        self._started = False
        self._socket_inode: int | None = None
        if path is not None:
            with contextlib.suppress(OSError):
                self._socket_inode = os.stat(path).st_ino

    @property
    def closed(self) -> bool:
        """Whether the listener has stopped."""
        return self._finished.is_set()

    async def aclose(self) -> None:
        """Stop accepting, close every connection and tunnel of this listener, and wait."""
        self._scope.cancel()
        if self._started:
            await self._finished.wait()
        elif not self._finished.is_set():  # never served: close the socket here
            self._finished.set()
            await self._listener.aclose()
            self._remove_socket_file()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Accept and serve clients until closed (the proxy runs this in its task group)."""
        self._started = True
        try:
            with self._scope:
                async with self._listener, anyio.create_task_group() as connections:
                    task_status.started()
                    while True:
                        stream = await self._accept()
                        connections.start_soon(self._serve, stream)
        finally:
            self._remove_socket_file()
            self._finished.set()

    async def _accept(self) -> ByteStream:
        while True:
            try:
                return await self._listener.accept()
            except OSError as exc:  # out of file descriptors, say: wait, then accept again
                logger.warning("egress %s: accept failed (%s)", self._ctx.name, exc)
                await anyio.sleep(0.1)

    async def _serve(self, stream: ByteStream) -> None:
        ctx = self._ctx
        async with stream:
            if ctx.active >= ctx.limits.max_connections:
                reason = f"more than {ctx.limits.max_connections} connections at once"
                await send_error(stream, "too-many-connections", reason)
                return
            ctx.active += 1
            try:
                await serve_connection(stream, ctx)
                await _linger(stream, ctx.limits.chunk_bytes)
            except Exception:  # a bug must not take the listener down: log it, drop the client
                logger.exception("egress %s: connection failed", ctx.name)
            finally:
                ctx.active -= 1

    def _remove_socket_file(self) -> None:
        if self.path is None or self._socket_inode is None:
            return
        with contextlib.suppress(OSError):
            info = os.lstat(self.path)
            if stat.S_ISSOCK(info.st_mode) and info.st_ino == self._socket_inode:
                os.unlink(self.path)
