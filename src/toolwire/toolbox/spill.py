"""Spill files: where the terminal puts output that is over its call's budget.

The full output is written, through the tool's ``ScopedFs`` (so it is reach-checked), to
``<working_dir>/.toolwire/terminal-spill/<session>-<epoch ms>-<6 hex>.log``. The inline result
keeps the head (60 %) and the tail (40 %) of what fits, a line saying how much was left out,
and the spill pointer line ``[full output: <path> (<n> chars)]`` that the reducers preserve.
When the file cannot be written the notice says so and there is no pointer.

Each spill prunes the spill files older than 24 hours, through the same ``ScopedFs``: only
direct children of the spill directory whose names have the spill-file shape.
"""

from __future__ import annotations

import os
import re
import secrets
import time

from toolwire.context import ToolContext
from toolwire.errors import CapabilityError
from toolwire.reducers.spill import format_spill_pointer
from toolwire.seams import ScopedFs
from toolwire.toolbox.protected import STATE_DIR_NAME

__all__ = [
    "SPILL_DIR",
    "SPILL_MAX_AGE_S",
    "inline_with_spill",
    "prune_spill_files",
    "spill_output",
]

SPILL_DIR = f"{STATE_DIR_NAME}/terminal-spill"
"""Spill directory, relative to the working directory."""
SPILL_MAX_AGE_S = 24 * 3600.0
"""Spill files older than this are deleted by the next spill."""

_SPILL_NAME = re.compile(r"^[A-Za-z0-9_-]+-\d+-[0-9a-f]{6}\.log$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_HEAD_SHARE = 0.6


def _file_name(session_id: str) -> str:
    session = _UNSAFE.sub("_", session_id)[:64] or "session"
    return f"{session}-{int(time.time() * 1000)}-{secrets.token_hex(3)}.log"


async def spill_output(ctx: ToolContext, output: str) -> tuple[str | None, str | None]:
    """Write ``output`` to a new spill file; returns ``(path, None)`` or ``(None, why not)``."""
    fs = ctx.scoped_fs
    if fs is None:
        return None, "no file access is configured"
    directory = os.path.join(ctx.working_dir, SPILL_DIR)
    path = os.path.join(directory, _file_name(ctx.session_id))
    try:
        await fs.write(path, output)
    except (CapabilityError, OSError) as exc:
        return None, str(exc)
    await prune_spill_files(fs, directory)
    return path, None


async def prune_spill_files(fs: ScopedFs, directory: str, *, now: float | None = None) -> list[str]:
    """Delete spill files in ``directory`` older than `SPILL_MAX_AGE_S`; returns their paths.

    Never raises: a spill must not fail because an old file could not be removed.
    """
    cutoff = (time.time() if now is None else now) - SPILL_MAX_AGE_S
    old: list[str] = []
    try:
        for entry in await fs.list_entries(directory):
            if entry.is_dir or not _SPILL_NAME.match(entry.name):
                continue
            path = os.path.join(directory, entry.name)
            mtime = await fs.mtime(path)
            if mtime is not None and mtime < cutoff and await fs.remove(path):
                old.append(path)
    except (CapabilityError, OSError):
        return old
    return old


def inline_with_spill(output: str, budget: int, path: str | None, failure: str | None) -> str:
    """Head + notice + tail (+ the spill pointer) of ``output``, in about ``budget`` chars."""
    total = len(output)
    if path is not None:
        pointer = format_spill_pointer(path, total)
        notice_for = "; the full output is in the file named below (read it with read_file)"
    else:
        pointer = ""
        notice_for = f"; the full output could not be saved ({failure})"
    probe = f"\n[… {total} chars omitted{notice_for} …]\n"
    room = max(2, budget - len(probe) - len(pointer) - 1)
    head_len = max(1, int(room * _HEAD_SHARE))
    tail_len = max(1, room - head_len)
    omitted = max(0, total - head_len - tail_len)
    notice = f"\n[… {omitted} chars omitted{notice_for} …]\n"
    head, tail = output[:head_len], output[total - tail_len :]
    return f"{head}{notice}{tail}" + (f"\n{pointer}" if pointer else "")
