"""STALE_WRITE: refuse to write over a file that changed since the model read it.

`read_file` records each file's modification time in ``ctx.read_mtimes``. Before `write_file`
or `patch_file` touch a file that was read, they compare the file's current modification time
with the record: a file that changed or vanished since is refused with the code
``STALE_WRITE``, naming both times, and nothing is written. After their own write they refresh
the record, so the model's next edit of the same file goes through. A file that was never read
is writable (a new file, or one the model is rewriting whole). ``ctx.read_mtimes = None``
switches the checks off.

A record belongs to the **file, not to the spelling** the model used, so a read through one name
and a write through another still meet (`look` says where a path leads and which file is there):

* it is kept under the path the name resolves to — symbolic links followed, ``.``/``..``
  collapsed — which also catches a file an editor replaced by renaming a new one over it;
* and under the file's identity, ``inode:<device>:<inode>``, consulted when the file has more
  than one hard link (the only way two resolved paths are one file). A file with one link is
  judged by its path alone, so a recycled inode number never makes a new file look stale.

With a seam that cannot describe a path (no ``stat``), records are kept under the path as
spelled, as before. The check needs no read reach: the file's time is metadata, not contents.

Records kept elsewhere (replicas keep them on the shared store, one entry per file:
`toolwire.replicas._read_records`) are brought in by `fetch_records` before the check, so a
call only ever touches the records of the files it reads and writes.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

from toolwire.capabilities.seams import ReadRecord
from toolwire.context import ToolContext
from toolwire.results import Err, ErrorCode
from toolwire.toolbox._file_stats import PathStat

__all__ = [
    "FetchedRecords",
    "check_not_stale",
    "fetch_records",
    "format_time",
    "identity_key",
    "record_read",
    "refresh_record",
]


@runtime_checkable
class FetchedRecords(Protocol):
    """Records that live elsewhere and are fetched per key before a check reads them."""

    async def fetch(self, keys: Collection[str]) -> None:
        """Bring in the records of ``keys`` (those not fetched or changed yet)."""
        ...


def format_time(timestamp: float) -> str:
    """A modification time as ISO 8601 UTC with microseconds."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="microseconds")


def identity_key(info: PathStat) -> str | None:
    """The record key of the file ``info`` describes (``inode:<dev>:<ino>``); ``None`` when
    nothing is there or the seam does not know."""
    if not info.exists or not info.inode:
        return None
    return f"inode:{info.device}:{info.inode}"


def _record_of(records: dict[str, ReadRecord], info: PathStat) -> ReadRecord | None:
    key = identity_key(info)
    if key is not None and info.links > 1 and key in records:
        return records[key]  # the freshest read of this file, through any of its names
    return records.get(info.path)


async def fetch_records(ctx: ToolContext, info: PathStat) -> None:
    """Bring in the records `check_not_stale` consults for the file at ``info``, when
    ``ctx.read_mtimes`` keeps them elsewhere (`FetchedRecords`); nothing for a plain dict.

    Raises:
        StoreError: the store holding them could not be reached.
    """
    records = ctx.read_mtimes
    if not isinstance(records, FetchedRecords):
        return
    keys = [info.path]
    key = identity_key(info)
    if key is not None and info.links > 1:
        keys.append(key)
    await records.fetch(keys)


def check_not_stale(ctx: ToolContext, asked: str, info: PathStat) -> Err | None:
    """``STALE_WRITE`` when the file at ``info`` was read and has changed or vanished since.

    Args:
        ctx: The call's context (its ``read_mtimes``).
        asked: The path as the model gave it (named in the message).
        info: A fresh `look` at it, taken under the path's write lock.
    """
    records = ctx.read_mtimes
    if records is None:
        return None
    record = _record_of(records, info)
    if record is None:
        return None
    if info.mtime is None:
        message = (
            f"STALE_WRITE: {asked} was read (modified at {format_time(record.mtime)}) but no "
            "longer exists on disk. Re-read the file before writing."
        )
    elif info.mtime != record.mtime:
        message = (
            f"STALE_WRITE: {asked} was read when it was last modified at "
            f"{format_time(record.mtime)}, but it was modified again at "
            f"{format_time(info.mtime)}. Re-read the file before writing."
        )
    else:
        return None
    return Err(message, ErrorCode.STALE_WRITE, conflict_key=info.path)


def record_read(ctx: ToolContext, info: PathStat) -> None:
    """Remember that the file at ``info`` was read as it was then (under each of its keys)."""
    records = ctx.read_mtimes
    if records is None or info.mtime is None:
        return
    record = ReadRecord(mtime=info.mtime, read_at_turn=ctx.current_turn)
    records[info.path] = record
    key = identity_key(info)
    if key is not None:
        records[key] = record


def refresh_record(ctx: ToolContext, before: PathStat, after: PathStat) -> None:
    """Record the file after the tool's own write (``before``: the look that passed the check).

    An atomic write puts a new file under the name, so the old identity's record is dropped.
    """
    records = ctx.read_mtimes
    if records is None:
        return
    old, new = identity_key(before), identity_key(after)
    if old is not None and old != new:
        records.pop(old, None)
    if after.exists:
        record_read(ctx, after)
    else:
        records.pop(after.path, None)
