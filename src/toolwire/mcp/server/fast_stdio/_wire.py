"""The lean loop's side of stdout: the wire held privately, and one writer for every line.

`claimed_stdout` does what the SDK's stdio transport does with fd 1: it serves the wire from
a private duplicate and points fd 1 at stderr meanwhile (restored on exit), so a tool's stray
``print`` cannot corrupt the protocol. `LineWriter` is the only thing that writes the wire:
answers, notifications and, after a handover, the SDK's messages go through it in order, one
whole line at a time, from a worker thread (a client that stops reading stalls no call).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from pydantic_core import to_jsonable_python

__all__ = ["LineWriter", "claimed_stdout"]

_JSON: dict[str, Any] = {
    "ensure_ascii": False,
    "separators": (",", ":"),
    "default": to_jsonable_python,  # dates, decimals, UUIDs... as the SDK's dump writes them
}


@contextlib.contextmanager
def claimed_stdout() -> Iterator[IO[bytes] | None]:
    """The wire (a private duplicate of fd 1), with fd 1 pointing at stderr meanwhile; or
    ``None`` where this does not apply (stdout is not fd 1, or Windows)."""
    try:
        stdout_fd = sys.stdout.fileno() if sys.stdout is not None else -1
    except (OSError, ValueError):
        stdout_fd = -1
    if stdout_fd != 1 or sys.platform == "win32":
        yield None
        return
    import fcntl

    sys.stdout.flush()
    wire_fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(2, 1)
    wire = open(wire_fd, "wb", buffering=0, closefd=True)  # noqa: SIM115 (closed below)
    try:
        yield wire
    finally:
        with contextlib.suppress(OSError):
            sys.stdout.flush()
        with contextlib.suppress(OSError):
            os.dup2(wire_fd, 1)
        wire.close()


class LineWriter:
    """Writes whole JSON-RPC lines to the wire, in the order they are handed in.

    Args:
        wire: Where the lines go (opened in binary mode).
    """

    def __init__(self, wire: IO[bytes]) -> None:
        self._wire = wire
        self._send: MemoryObjectSendStream[bytes]
        self._receive: MemoryObjectReceiveStream[bytes]
        self._send, self._receive = anyio.create_memory_object_stream[bytes](256)

    async def send(self, message: dict[str, Any]) -> None:
        """Queue one message (dropped when the writer has stopped: the client is gone)."""
        data = json.dumps(message, **_JSON) + "\n"
        await self.send_line(data)

    async def send_line(self, line: str) -> None:
        """Queue one line, already JSON and ending with a newline."""
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self._send.send(line.encode("utf-8"))

    def close(self) -> None:
        """No more lines: `run` ends once it has written those already queued."""
        self._send.close()

    async def run(self) -> None:
        """Write queued lines until `close` (or until the wire breaks: the client is gone)."""
        async with self._receive:
            async for data in self._receive:
                try:
                    await anyio.to_thread.run_sync(self._write, data, abandon_on_cancel=True)
                except OSError:
                    return  # the client closed its end: nothing more can be said

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = self._wire.write(view)
            view = view[written or 0 :]
