"""STALE_WRITE: refuse to write over a file that changed since the model read it.

`read_file` records each file's modification time in ``ctx.read_mtimes`` (absolute path →
`ReadRecord`). Before `write_file` or `patch_file` touch a file that was read, they compare the
file's current modification time with the record: a file that changed or vanished since is
refused with the code ``STALE_WRITE``, naming both times, and nothing is written. After their
own write they refresh the record, so the model's next edit of the same file goes through. A
file that was never read is writable (a new file, or one the model is rewriting whole).
``ctx.read_mtimes = None`` switches the checks off.
"""

from __future__ import annotations

from datetime import UTC, datetime

from toolwire.context import ToolContext
from toolwire.results import Err, ErrorCode
from toolwire.seams import ReadRecord, ScopedFs

__all__ = ["check_not_stale", "format_time", "refresh_record"]


def format_time(timestamp: float) -> str:
    """A modification time as ISO 8601 UTC with microseconds."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="microseconds")


async def check_not_stale(ctx: ToolContext, fs: ScopedFs, path: str) -> Err | None:
    """``STALE_WRITE`` when ``path`` was read and has changed or vanished since; else ``None``."""
    records = ctx.read_mtimes
    if records is None:
        return None
    record = records.get(path)
    if record is None:
        return None
    current = await fs.mtime(path)
    if current is None:
        message = (
            f"STALE_WRITE: {path} was read (modified at {format_time(record.mtime)}) but no "
            "longer exists on disk. Re-read the file before writing."
        )
    elif current != record.mtime:
        message = (
            f"STALE_WRITE: {path} was read when it was last modified at "
            f"{format_time(record.mtime)}, but it was modified again at {format_time(current)}. "
            "Re-read the file before writing."
        )
    else:
        return None
    return Err(message, ErrorCode.STALE_WRITE, conflict_key=path)


async def refresh_record(ctx: ToolContext, fs: ScopedFs, path: str) -> None:
    """Record ``path``'s modification time after the tool's own write (drop it when gone)."""
    records = ctx.read_mtimes
    if records is None:
        return
    current = await fs.mtime(path)
    if current is None:
        records.pop(path, None)
    else:
        records[path] = ReadRecord(mtime=current, read_at_turn=ctx.current_turn)
