"""Handing a lean stdio connection to the SDK server, mid-stream, with nothing lost.

The SDK server (`toolwire.mcp.server.build_mcp_server`, imported only now) is given the
lines the lean loop recorded (the ``initialize`` request and the ``initialized``
notification), then the line the loop did not answer, then the rest of stdin as it arrives.
It answers the replayed ``initialize`` again; that duplicate answer is swallowed, so the
client sees each answer once. Its session then stands where the lean one stood: same
negotiated revision, same client capabilities, same STALE_WRITE read records and session id,
same presenter. Its messages go out through the lean loop's writer, after whatever the loop
sent before; calls the loop started finish there (a ``notifications/cancelled`` naming one
still reaches it). When stdin ends, the SDK server answers what it was asked before stopping,
within the same grace as the loop's calls (`toolwire.mcp.server.fast_stdio.sdk_streams`).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import anyio

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from toolwire.mcp.server.fast_stdio._loop import LeanStdio
    from toolwire.mcp.server.fast_stdio._wire import LineWriter
    from toolwire.mcp.server.fast_stdio.grace import StdinEnd

__all__ = ["hand_over"]


async def hand_over(
    lean: LeanStdio,
    pending: str,
    lines: MemoryObjectReceiveStream[str],
    writer: LineWriter,
    end: StdinEnd,
) -> None:
    """Serve the rest of the connection with the SDK server (see the module doc); returns
    when stdin has ended and the SDK server has answered what it was asked (or ``end``'s
    grace is over).

    Args:
        lean: The loop that served the connection so far.
        pending: The line it did not answer.
        lines: The rest of stdin.
        writer: The wire.
        end: When stdin ended (set here), and so the grace's deadline.
    """
    from mcp.server.stdio import stdio_server

    from toolwire.mcp.server._server import build_mcp_server
    from toolwire.mcp.server.fast_stdio.sdk_streams import graceful_streams

    lean.stop_announcing()
    built = build_mcp_server(lean.registry, replace(lean.options, presenter=lean.presenter))
    server = built.sdk
    sessions = built.calls.sessions  # the lean session's id and read records
    sessions.process_id = lean.sessions.process_id
    sessions.book = lean.sessions.book
    feed, fed = anyio.create_memory_object_stream[str](math.inf)
    for line in (*lean.replay, pending):
        feed.send_nowait(line)
    out = _SdkOut(writer, lean.handshake_id)
    stdin = cast("anyio.AsyncFile[str]", fed)  # stdio_server only iterates it
    stdout = cast("anyio.AsyncFile[str]", out)  # ... and only writes and flushes this
    async with (
        stdio_server(stdin=stdin, stdout=stdout) as (read, write),
        anyio.create_task_group() as group,
    ):
        group.start_soon(_relay, lean, lines, feed, end)
        graceful_read, graceful_write = graceful_streams(read, write, end)
        await server.run(graceful_read, graceful_write, server.create_initialization_options())
        group.cancel_scope.cancel()


async def _relay(
    lean: LeanStdio,
    lines: MemoryObjectReceiveStream[str],
    feed: MemoryObjectSendStream[str],
    end: StdinEnd,
) -> None:
    """Pass stdin on to the SDK server; a cancellation of a lean call stays with the loop.
    At stdin's end the grace starts (the loop's calls finish in `LeanStdio.finish_calls`)."""
    async with feed:
        async for line in lines:
            if "notifications/cancelled" in line and lean.cancel(line):
                continue
            await feed.send(line)
        end.reached()


class _SdkOut:
    """The SDK transport's stdout: its lines go to the lean writer, except its answer to
    the replayed ``initialize`` (the client has had that one)."""

    def __init__(self, writer: LineWriter, handshake_id: int | str | None) -> None:
        self._writer = writer
        self._swallow = handshake_id

    async def write(self, data: str) -> None:
        if self._swallow is not None and _answers(data, self._swallow):
            self._swallow = None
            return
        await self._writer.send_line(data)

    async def flush(self) -> None:
        """Lines are written whole, in order, by the lean writer."""


def _answers(data: str, request_id: int | str) -> bool:
    try:
        message: Any = json.loads(data)
    except (ValueError, RecursionError):  # not the answer it swallows
        return False
    return (
        isinstance(message, dict)
        and message.get("id") == request_id
        and ("result" in message or "error" in message)
        and "method" not in message
    )
