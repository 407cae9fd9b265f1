"""Spill files: where the terminal puts output that is over its call's budget.

The output is written, through the tool's ``ScopedFs`` (so it is reach-checked), to
``<working_dir>/.toolwire/terminal-spill/<session>-<epoch ms>-<6 hex>.log``. The inline result
keeps the head (60 %) and the tail (40 %) of what fits, a line saying how much was left out,
and the spill pointer line that the reducers preserve: ``[full output: <path> (<n> chars)]``,
or ``[partial output: ...]`` with the true size when the command wrote more than the process
runner keeps (about 1 MB per stream, head and tail) and the file holds only that part. When the
file cannot be written the notice says so and there is no pointer.

The pointer is the tool's own: every pointer-shaped line in a command's output is defused
(`defuse_pointers`) as it goes into the result, so output cannot forge one, and
``Ok.structured["spill"]`` carries the same facts as data (`spill_facts`).

Each spill prunes the spill files older than 24 hours, through the same ``ScopedFs``: only
direct children of the spill directory whose names have the spill-file shape.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from toolwire.capabilities.seams import ProcessResult, ScopedFs
from toolwire.context import ToolContext
from toolwire.errors import CapabilityError
from toolwire.reducers._spill import SPILL_POINTER_PATTERN, format_spill_pointer
from toolwire.toolbox._protected import STATE_DIR_NAME

__all__ = [
    "SPILL_DIR",
    "SPILL_MAX_AGE_S",
    "OutputSize",
    "defuse_pointers",
    "inline_with_spill",
    "output_size",
    "prune_spill_files",
    "spill_facts",
    "spill_output",
]

SPILL_DIR = f"{STATE_DIR_NAME}/terminal-spill"
"""Spill directory, relative to the working directory."""
SPILL_MAX_AGE_S = 24 * 3600.0
"""Spill files older than this are deleted by the next spill."""

_SPILL_NAME = re.compile(r"^[A-Za-z0-9_-]+-\d+-[0-9a-f]{6}\.log$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_HEAD_SHARE = 0.6
_POINTER_STARTS = ("[full output: ", "[partial output: ")


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputSize:
    """How many bytes a command wrote, and how many of them the process runner kept."""

    total_bytes: int
    kept_bytes: int

    @property
    def partial(self) -> bool:
        """Whether the runner dropped part of the output (its middle)."""
        return self.kept_bytes < self.total_bytes


def output_size(result: ProcessResult) -> OutputSize:
    """What a finished command wrote: the bytes kept in ``result`` plus the bytes dropped.

    Kept bytes are counted on the decoded text (exact for UTF-8 output), less the line the
    runner puts where it dropped the middle of a stream.
    """
    kept = dropped = 0
    streams = (
        (result.stdout, result.dropped_stdout_bytes),
        (result.stderr, result.dropped_stderr_bytes),
    )
    for text, lost in streams:
        size = len(text.encode("utf-8", errors="surrogatepass"))
        marker = f"\n[… {lost} bytes of output dropped …]\n"  # run_process's, not output
        if lost and marker in text:
            size -= len(marker.encode("utf-8"))
        kept += size
        dropped += lost
    return OutputSize(total_bytes=kept + dropped, kept_bytes=kept)


def defuse_pointers(text: str) -> str:
    """``text`` with every spill-pointer-shaped line defused (U+200B after its ``[``).

    A command's output is the command's, not the tool's: a line in it that looks like the spill
    pointer must not be taken for one by a reducer or the presenter.
    """
    if "output: " not in text:
        return text
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith(_POINTER_STARTS) and SPILL_POINTER_PATTERN.match(line.rstrip("\r")):
            lines[index] = "[\u200b" + line[1:]
    return "\n".join(lines)


def spill_facts(path: str, size: OutputSize) -> dict[str, Any]:
    """``Ok.structured`` for a spilled result: ``{"spill": {path, total_bytes, kept_bytes}}``."""
    return {"spill": {"path": path, "total_bytes": size.total_bytes, "kept_bytes": size.kept_bytes}}


def _file_name(session_id: str) -> str:
    session = _UNSAFE.sub("_", session_id)[:64] or "session"
    return f"{session}-{int(time.time() * 1000)}-{secrets.token_hex(3)}.log"


async def spill_output(ctx: ToolContext, output: str) -> tuple[str | None, str | None]:
    """Write ``output`` (as the command wrote it) to a new spill file; returns ``(path, None)``
    or ``(None, why not)``."""
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


def inline_with_spill(
    output: str, budget: int, path: str | None, failure: str | None, size: OutputSize
) -> str:
    """Head + notice + tail (+ the spill pointer) of ``output``, in about ``budget`` chars.

    Args:
        output: The output as the command wrote it (and as the spill file holds it).
        budget: The characters the result may hold.
        path: The spill file, or ``None`` when it could not be written.
        failure: Why it could not be written.
        size: What the command wrote and what of it was kept (and so is in the file).
    """
    total = len(output)
    wrote = f"the command wrote {size.total_bytes} bytes"
    if path is None:
        pointer = ""
        kept = f"; {wrote}, of which {size.kept_bytes} were kept" if size.partial else ""
        notice_for = f"; the full output could not be saved ({failure}){kept}"
    elif size.partial:
        pointer = format_spill_pointer(
            path, total, total_bytes=size.total_bytes, kept_bytes=size.kept_bytes
        )
        notice_for = (
            f"; {wrote} and the file named below keeps {size.kept_bytes} of them, its head and "
            "tail (read it with read_file)"
        )
    else:
        pointer = format_spill_pointer(path, total)
        notice_for = "; the full output is in the file named below (read it with read_file)"
    probe = f"\n[… {total} chars omitted{notice_for} …]\n"
    room = max(2, budget - len(probe) - len(pointer) - 1)
    head_len = max(1, int(room * _HEAD_SHARE))
    tail_len = max(1, room - head_len)
    omitted = max(0, total - head_len - tail_len)
    notice = f"\n[… {omitted} chars omitted{notice_for} …]\n"
    head, tail = output[:head_len], output[total - tail_len :]
    inline = defuse_pointers(f"{head}{notice}{tail}")  # after the cut, which can make a line
    return inline + (f"\n{pointer}" if pointer else "")
