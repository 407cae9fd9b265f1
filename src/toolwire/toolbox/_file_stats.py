"""What the file tools learn about a path before they touch its contents: `look`.

The file seam's ``stat`` (`toolwire.capabilities.kinds.fs_reach.seam.StatFs`) says, without opening
anything, where a path leads once its links are followed, what is there (a regular file, a
directory, a named pipe, a socket, a device) and which file it is (device and inode). It needs read
reach *or* write reach, so a tool that may only write can still tell a new file from an old one. The
tools key their locks and STALE_WRITE records on that answer, refuse toolwire's own state by where a
path leads rather than how it is spelled, and never open what is not a regular file.

A `ScopedFs` without ``stat`` is asked ``mtime`` and ``size`` instead (read reach): the path is
then taken as spelled, anything there counts as a file and no identity is known.
"""

from __future__ import annotations

from toolwire.capabilities.kinds.fs_reach.seam import PathStat, ScopedFs, StatFs, describe_kind

__all__ = ["PathStat", "StatFs", "look", "same_version", "unreadable_kind"]


async def look(fs: ScopedFs, path: str) -> PathStat:
    """What is at ``path``, through ``fs.stat`` when the seam has it."""
    if isinstance(fs, StatFs):
        return await fs.stat(path)
    mtime = await fs.mtime(path)
    if mtime is None:
        return PathStat(path=path)
    return PathStat(path=path, kind="file", mtime=mtime, size=await fs.size(path) or 0)


def same_version(before: PathStat, after: PathStat) -> bool:
    """Whether two looks saw the same file in the same state (identity, size and time)."""
    return (before.device, before.inode, before.size, before.mtime) == (
        after.device,
        after.inode,
        after.size,
        after.mtime,
    )


def unreadable_kind(info: PathStat) -> str | None:
    """Why a file tool does not open what ``info`` describes (``"a socket"``, ...), or ``None``
    for a regular file or nothing at all."""
    if info.kind is None or info.kind == "file":
        return None
    return describe_kind(info.kind)
