"""Stdin's end on a stdio server: what was asked before it is answered, within a grace.

An MCP stdio client closes stdin to ask its server to stop (and a script pipes a fixed set of
requests, then closes it). Every request read before that end is still answered: the server waits
for the calls in flight up to `eof_grace_s` (``TOOLWIRE_STDIO_EOF_GRACE_S``, 30 s by default), then
aborts those still running (their abort signal fires) and answers each with the SDK's
`CONNECTION_CLOSED` error, and only then exits. `StdinEnd` is that one deadline, shared by the lean
loop's calls (`toolwire.mcp.server.fast_stdio._loop`) and the SDK server's
(`toolwire.mcp.server.fast_stdio.sdk_streams`) after a handover.

A client that has gone altogether (killed: nobody reads stdout any more) gets no grace: its calls
are aborted at once, as a dropped HTTP client's are (`toolwire.mcp.server.hangups`). The wait looks
at stdout's far end every `WATCH_S`.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import sys
from collections.abc import Iterator

import anyio

from toolwire.errors import ConfigurationError

__all__ = [
    "CONNECTION_CLOSED",
    "DEFAULT_GRACE_S",
    "GRACE_ENV",
    "StdinEnd",
    "eof_grace_s",
    "reader_gone",
    "watched_stdout",
]

GRACE_ENV = "TOOLWIRE_STDIO_EOF_GRACE_S"
"""Seconds the calls in flight when stdin ends may take before they are aborted."""
DEFAULT_GRACE_S = 30.0
"""The grace when `GRACE_ENV` is not set."""
CONNECTION_CLOSED = {"code": -32000, "message": "Connection closed"}
"""The answer of a call aborted at the end of the grace (the SDK server's, for the same case)."""
WATCH_S = 0.1
"""How often the grace looks whether anybody still reads stdout."""


def eof_grace_s() -> float:
    """The grace `GRACE_ENV` sets (`DEFAULT_GRACE_S` when unset or blank).

    Raises:
        ConfigurationError: The value is not a finite number of seconds >= 0.
    """
    raw = os.environ.get(GRACE_ENV, "").strip()
    if not raw:
        return DEFAULT_GRACE_S
    try:
        grace = float(raw)
    except ValueError:
        grace = math.nan
    if not math.isfinite(grace) or grace < 0:
        raise ConfigurationError(
            f"{GRACE_ENV}={raw!r} is not a number of seconds: set it to 0 or more "
            f"(e.g. {GRACE_ENV}=5), or unset it for the default {DEFAULT_GRACE_S:g} s"
        )
    return grace


def reader_gone(fd: int) -> bool:
    """Whether nobody reads ``fd`` any more (a pipe's or socket's far end is closed)."""
    poller = select.poll()
    poller.register(fd, 0)  # POLLERR and POLLHUP are always reported
    return any(event & (select.POLLERR | select.POLLHUP) for _, event in poller.poll(0))


@contextlib.contextmanager
def watched_stdout() -> Iterator[int | None]:
    """A duplicate of fd 1 to watch with `reader_gone` (``None`` where stdout is not fd 1, or
    on Windows), taken before a transport points fd 1 elsewhere."""
    try:
        stdout_fd = sys.stdout.fileno() if sys.stdout is not None else -1
    except (OSError, ValueError):
        stdout_fd = -1
    if stdout_fd != 1 or sys.platform == "win32":
        yield None
        return
    import fcntl

    fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        yield fd
    finally:
        os.close(fd)


class StdinEnd:
    """When stdin ended, and so until when the calls it left running may run.

    Args:
        grace_s: How long they may run after it.
        wire_fd: The wire (stdout) to watch: once nobody reads it the grace is over.
    """

    __slots__ = ("_deadline", "_wire_fd", "grace_s")

    def __init__(self, grace_s: float, wire_fd: int | None = None) -> None:
        self.grace_s = grace_s
        self._wire_fd = wire_fd
        self._deadline: float | None = None

    def reached(self) -> None:
        """Stdin has ended (the first call counts; later ones change nothing)."""
        if self._deadline is None:
            self._deadline = anyio.current_time() + self.grace_s

    def left_s(self) -> float:
        """Seconds left of the grace (all of it while stdin has not ended)."""
        if self._deadline is None:
            return self.grace_s
        return max(0.0, self._deadline - anyio.current_time())

    async def wait_for(self, settled: anyio.Event) -> None:
        """Stdin has ended: wait until ``settled`` is set, the grace is over or nobody reads
        the answers any more (the grace is then over for every waiter)."""
        self.reached()
        with anyio.move_on_after(self.left_s()):
            async with anyio.create_task_group() as group:
                if self._wire_fd is not None:
                    group.start_soon(self._watch, self._wire_fd, group.cancel_scope)
                await settled.wait()
                group.cancel_scope.cancel()

    async def _watch(self, fd: int, wait: anyio.CancelScope) -> None:
        while not reader_gone(fd):
            await anyio.sleep(WATCH_S)
        self._deadline = anyio.current_time()
        wait.cancel()
