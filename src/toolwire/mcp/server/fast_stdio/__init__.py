"""The lean stdio loop: ``toolwire serve --stdio`` answers its client before the MCP SDK loads.

A stdio server's cold start (spawn to the first ``tools/list`` answer) was mostly importing the SDK
and what it imports (pydantic models of every protocol revision, starlette, httpx).
`serve_lean_stdio` answers the handshake, ``ping``, ``tools/list`` and plain ``tools/call`` on the
standard library (`LeanStdio`), on both protocol generations, with the answers the SDK server would
give; the first message it does not answer itself hands the connection over to the SDK server
(`hand_over`), which is imported only then. When stdin ends, the requests read before it are
answered before it returns (`toolwire.mcp.server.fast_stdio.grace`).

``TOOLWIRE_MCP_LEAN=0`` turns it off (the SDK serves from the first byte), as it does the HTTP fast
path (`toolwire.mcp.server.fast_http`).

Rooms: ``_loop.py`` (`LeanStdio`), ``_messages.py`` (which messages it answers), ``_answers.py``
(the results, shaped per revision), ``_wire.py`` (stdout, one writer), ``_peers.py`` (tools left to
the SDK), ``_handover.py`` (the hand-over to the SDK server), ``sdk_streams.py`` (the SDK's
streams) and ``grace.py`` (stdin's end, answered within a grace).
"""

from __future__ import annotations

import gc
import logging
import os
import sys
from typing import TYPE_CHECKING

import anyio
import anyio.abc

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream

    from toolwire.mcp.server._server import ServeOptions
    from toolwire.mcp.server.fast_stdio._loop import LeanStdio
    from toolwire.registry import ToolRegistry

__all__ = ["LEAN_ENV", "lean_stdio_applies", "serve_lean_stdio"]

logger = logging.getLogger("toolwire.mcp.server.fast_stdio")

LEAN_ENV = "TOOLWIRE_MCP_LEAN"
"""Set to ``0`` to serve every stdio message through the SDK (the HTTP fast path's switch)."""
FREEZE_AFTER_S = 1.0
"""When the start-up objects are moved out of the garbage collector's view (after the first
answers have gone out, not before them)."""


def lean_stdio_applies(options: ServeOptions | None) -> bool:
    """Whether the lean loop may serve: it is on (``TOOLWIRE_MCP_LEAN`` is not ``0``), not
    Windows, and ``options`` add nothing to the server (no ``server_features``, ``auth`` or
    ``replicas``: those change what the SDK server answers or where its records live)."""
    if os.environ.get(LEAN_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    if sys.platform == "win32":
        return False
    if options is None:
        return True
    return not options.server_features and options.auth is None and options.replicas is None


async def serve_lean_stdio(
    registry: ToolRegistry,
    options: ServeOptions | None,
    lines: MemoryObjectReceiveStream[str],
    *,
    grace_s: float | None = None,
) -> bool:
    """Serve ``registry`` on stdin's ``lines`` and this process's stdout until stdin ends
    and the calls in flight then are answered (within ``grace_s``; ``None``: `eof_grace_s`).

    Returns ``False``, having read nothing, when stdout is not fd 1 (the caller serves with
    the SDK then).
    """
    from toolwire.mcp.server.fast_stdio._handover import hand_over
    from toolwire.mcp.server.fast_stdio._loop import LeanStdio
    from toolwire.mcp.server.fast_stdio._wire import LineWriter, claimed_stdout
    from toolwire.mcp.server.fast_stdio.grace import StdinEnd, eof_grace_s

    with claimed_stdout() as wire:
        if wire is None:
            return False
        writer = LineWriter(wire)
        lean = LeanStdio(registry, options, writer)
        end = StdinEnd(eof_grace_s() if grace_s is None else grace_s, wire.fileno())
        async with anyio.create_task_group() as group:
            group.start_soon(writer.run)
            group.start_soon(_freeze_startup_objects)
            try:
                async with lines:
                    async for line in lines:
                        if not await _took(lean, line, group):
                            await hand_over(lean, line, lines, writer, end)
                            break
                await lean.finish_calls(end)  # stdin has ended
            finally:
                lean.abort_calls()
                lean.stop_announcing()
                writer.close()
    return True


async def _took(lean: LeanStdio, line: str, group: anyio.abc.TaskGroup) -> bool:
    """Whether the loop answered ``line``; one it failed on goes to the SDK server (which gives
    its own answer or error) instead of ending the connection."""
    try:
        return await lean.take(line, group)
    except Exception:
        logger.exception("the lean stdio loop could not answer a message; the SDK takes over")
        return False


async def _freeze_startup_objects() -> None:
    """Move what start-up allocated (modules, schemas, the registry) out of the garbage collector's
    view, as `toolwire.mcp.server.serving` does for the SDK server: a long-running server otherwise
    rescans it on every full collection."""
    await anyio.sleep(FREEZE_AFTER_S)
    gc.collect()
    gc.freeze()
