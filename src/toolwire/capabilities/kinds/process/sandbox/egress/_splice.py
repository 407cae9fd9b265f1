"""Two byte streams joined both ways, half-close respected, idle ones closed."""

from __future__ import annotations

import anyio
from anyio import CancelScope
from anyio.abc import ByteStream

__all__ = ["splice"]

_ENDED = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)


class _Activity:
    """When a byte last crossed the tunnel, either way."""

    def __init__(self) -> None:
        self.last = anyio.current_time()

    def touch(self) -> None:
        self.last = anyio.current_time()


async def _pump(
    source: ByteStream, sink: ByteStream, activity: _Activity, chunk: int, tunnel: CancelScope
) -> None:
    """Copy ``source`` to ``sink`` until its end, then half-close ``sink``.

    A clean end (EOF) half-closes the other side and lets the opposite direction go on; a
    reset or a failed write ends the whole tunnel.
    """
    while True:
        try:
            data = await source.receive(chunk)
        except anyio.EndOfStream:
            try:
                await sink.send_eof()
            except _ENDED:
                tunnel.cancel()
            return
        except _ENDED:
            tunnel.cancel()
            return
        activity.touch()
        try:
            await sink.send(data)
        except _ENDED:
            tunnel.cancel()
            return
        activity.touch()


async def _watchdog(activity: _Activity, idle_s: float, tunnel: CancelScope) -> None:
    while True:
        remaining = activity.last + idle_s - anyio.current_time()
        if remaining <= 0:
            tunnel.cancel()
            return
        await anyio.sleep(remaining)


async def splice(first: ByteStream, second: ByteStream, *, idle_s: float, chunk: int) -> None:
    """Relay bytes between ``first`` and ``second`` until both directions have ended.

    Memory stays within one ``chunk`` per direction: a slow reader slows its writer.

    Args:
        first: One side (the client).
        second: The other side (the upstream).
        idle_s: Both sides are dropped when no byte crossed either way for this long.
        chunk: The most bytes read at once.
    """
    activity = _Activity()
    async with anyio.create_task_group() as tunnel:
        tunnel.start_soon(_watchdog, activity, idle_s, tunnel.cancel_scope)
        async with anyio.create_task_group() as pumps:
            pumps.start_soon(_pump, first, second, activity, chunk, tunnel.cancel_scope)
            pumps.start_soon(_pump, second, first, activity, chunk, tunnel.cancel_scope)
        tunnel.cancel_scope.cancel()
