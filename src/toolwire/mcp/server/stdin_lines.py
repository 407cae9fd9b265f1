"""This process's stdin as lines a stopping server does not have to wait for.

The SDK's stdio transport reads stdin in an anyio worker thread, and cancellation waits for
that thread: a server told to stop (SIGTERM, SIGINT) would hang until its client wrote another
line or closed stdin. `stdin_lines` reads in a daemon thread of its own instead, so leaving the
block never waits for input; a read still blocked then ends with the process.

Like the SDK, it serves the wire from a private duplicate of fd 0 and points fd 0 at the null
device meanwhile (restored on exit), so nothing else in the process reads the client's bytes.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import AsyncIterator
from concurrent.futures import CancelledError
from contextlib import asynccontextmanager

import anyio
import anyio.from_thread
from anyio.lowlevel import EventLoopToken, current_token
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

__all__ = ["stdin_lines"]


@asynccontextmanager
async def stdin_lines() -> AsyncIterator[MemoryObjectReceiveStream[str] | None]:
    """Yield a stream of stdin's lines (ending at EOF), or ``None`` where this does not apply
    (stdin is not fd 0, or Windows): the SDK's own reader is used then."""
    try:
        stdin_fd = sys.stdin.fileno() if sys.stdin is not None else -1
    except (OSError, ValueError):
        stdin_fd = -1
    if stdin_fd != 0 or sys.platform == "win32":
        yield None
        return
    import fcntl

    reader_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    saved_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.close(null_fd)
    send, receive = anyio.create_memory_object_stream[str]()
    thread = threading.Thread(
        target=_pump, args=(reader_fd, send, current_token()), name="toolwire-stdin", daemon=True
    )
    thread.start()
    try:
        yield receive
    finally:
        receive.close()
        os.dup2(saved_fd, 0)
        os.close(saved_fd)


def _pump(fd: int, send: MemoryObjectSendStream[str], token: EventLoopToken) -> None:
    """Hand each line read from ``fd`` to the event loop; close the stream at EOF."""
    try:
        with open(fd, encoding="utf-8", errors="replace", closefd=True) as lines:
            for line in lines:
                anyio.from_thread.run(send.send, line, token=token)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, RuntimeError, OSError):
        return  # the server stopped reading, or its event loop is gone
    except CancelledError:
        return  # the event loop was shutting down while a line was on its way
    finally:
        with contextlib.suppress(RuntimeError, CancelledError):  # nobody left to tell
            anyio.from_thread.run_sync(send.close, token=token)
