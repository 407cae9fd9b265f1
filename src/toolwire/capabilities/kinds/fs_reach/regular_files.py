"""Reading only regular files: what a path is (`PathStat`), and a read that never blocks on it.

A named pipe blocks ``open`` until a writer comes, a device such as ``/dev/zero`` never ends and a
socket cannot be opened: each used to hang a worker thread of the file seam (or fill memory).
`read_regular_file` looks first (``fstatat`` without following: a device is never even opened),
opens with ``O_NONBLOCK | O_NOFOLLOW`` relative to the directory descriptor the path was walked to
(`toolwire.capabilities.kinds.fs_reach.beneath`: a pipe or a link swapped in after the look cannot
block the ``open`` or lead elsewhere), checks the open descriptor (``fstat``: what was opened is
what counts) and that its directory is still beneath the reach prefix, and only then clears
``O_NONBLOCK`` and reads. Anything but a regular file is refused with a `PathNotReachableError`
saying what it is (``... it is a named pipe (FIFO), not a regular file ...``); a directory raises
`IsADirectoryError`.

`stat_path` describes a path without opening it: its kind, its identity (device and inode, the same
for every name of one file, hard links included), size and modification time. Both take a `Located`
path that `toolwire.capabilities.kinds.fs_reach._scoped.ReachScopedFs` has already checked and
walked.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

from toolwire.capabilities.kinds.fs_reach.beneath import Located
from toolwire.capabilities.kinds.fs_reach.seam import FileKind, PathStat, describe_kind
from toolwire.errors import PathNotReachableError

__all__ = ["file_kind", "read_regular_file", "stat_path"]

_KINDS: tuple[tuple[Callable[[int], bool], FileKind], ...] = (
    (stat.S_ISREG, "file"),
    (stat.S_ISDIR, "directory"),
    (stat.S_ISLNK, "symlink"),
    (stat.S_ISFIFO, "fifo"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)


def file_kind(mode: int) -> FileKind:
    """The kind of file an ``st_mode`` describes."""
    return next((kind for test, kind in _KINDS if test(mode)), "other")


_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY


def read_regular_file(located: Located, asked: str) -> bytes:
    """The bytes of the regular file ``located`` names (``asked`` names it in errors).

    Raises:
        FileNotFoundError: nothing is there.
        IsADirectoryError: a directory is there.
        PathNotReachableError: something else than a regular file is there, a link was
            swapped in, or its directory left the reach prefix.
    """
    try:
        _require_regular(located.lstat().st_mode, asked)  # a device is never even opened
        fd = located.open(_READ_FLAGS)  # O_NONBLOCK: a FIFO swapped in cannot block open
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, f"File not found: {asked}", asked) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _became_a_link(asked) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        _require_regular(os.fstat(fd).st_mode, asked)  # what was opened is what counts
        located.ensure_beneath()  # ... and it was opened beneath the prefix
        os.set_blocking(fd, True)
        return handle.read()


def _require_regular(mode: int, asked: str) -> None:
    kind = file_kind(mode)
    if kind == "file":
        return
    if kind == "directory":
        raise IsADirectoryError(errno.EISDIR, f"Is a directory: {asked}", asked)
    if kind == "symlink":
        raise _became_a_link(asked)
    raise PathNotReachableError(
        f'PATH_NOT_REACHABLE: read of "{asked}" is refused: it is {describe_kind(kind)}, not a '
        "regular file (only regular files are opened)"
    )


def _became_a_link(asked: str) -> PathNotReachableError:
    return PathNotReachableError(f'PATH_NOT_REACHABLE: read of "{asked}" became a symbolic link')


def stat_path(located: Located) -> PathStat:
    """What is at the checked path ``located`` names, without following a last link or opening
    it."""
    if located.missing == errno.ENOENT:
        return PathStat(path=located.path)
    try:
        info = located.lstat()  # the name is link-free once checked; a link now is a race
    except FileNotFoundError:
        return PathStat(path=located.path)
    located.ensure_beneath()
    return PathStat(
        path=located.path,
        kind=file_kind(info.st_mode),
        device=info.st_dev,
        inode=info.st_ino,
        links=info.st_nlink,
        size=info.st_size,
        mtime=info.st_mtime,
    )
