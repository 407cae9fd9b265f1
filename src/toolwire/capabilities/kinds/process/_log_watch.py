"""Following a background process's logs until a line matches: ``process_watch``'s engine.

The current log generation of each stream is read from its start, then followed (polled);
lines are matched as they complete, a last partial line once the process has ended and its
output is read. `watch_logs` returns at the first match, at the end, or at the timeout.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import anyio
import anyio.to_thread

from toolwire.capabilities.kinds.process._background_process import (
    LogStream,
    RunningProcess,
    WatchResult,
)
from toolwire.capabilities.kinds.process._process_logs import line_matcher, read_from

__all__ = ["watch_logs"]

_FOLLOW_S = 0.1
"""How often a followed log is read again."""


async def watch_logs(
    entry: RunningProcess, patterns: Sequence[str], timeout_s: float, streams: Sequence[LogStream]
) -> WatchResult:
    """Wait for a line of ``entry``'s ``streams`` matching one of ``patterns`` (``/regex/`` or
    a substring).

    Raises:
        re.error: a ``/regex/`` pattern does not compile.
    """
    matchers = [line_matcher(p) for p in patterns]
    offsets = dict.fromkeys(streams, 0)
    partial = dict.fromkeys(streams, b"")
    with anyio.move_on_after(max(timeout_s, 0.0)):
        while True:
            ended = (
                entry.snapshot().status != "running"
                and entry.pump is not None
                and not entry.pump.is_alive()
            )
            for stream in streams:
                path = os.path.join(entry.info.log_dir, f"{stream}.log")
                data, offsets[stream] = await anyio.to_thread.run_sync(
                    read_from, path, offsets[stream]
                )
                chunk = partial[stream] + data
                *complete, partial[stream] = chunk.split(b"\n")
                if ended and partial[stream]:
                    complete.append(partial[stream])
                    partial[stream] = b""
                for raw in complete:
                    line = raw.decode("utf-8", errors="replace").rstrip("\r")
                    for pattern, test in zip(patterns, matchers, strict=True):
                        if test(line):
                            return WatchResult(
                                matched=True,
                                pattern=pattern,
                                stream=stream,
                                line=line,
                                process=entry.snapshot(),
                            )
            if ended:
                break
            await anyio.sleep(_FOLLOW_S)
    return WatchResult(matched=False, process=entry.snapshot())
