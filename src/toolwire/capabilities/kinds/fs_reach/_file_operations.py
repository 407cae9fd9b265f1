"""What `ReachScopedFs` does at a walked path: write, list, look, create, remove.

Each operation takes a `toolwire.capabilities.kinds.fs_reach.beneath.Located` — the directory
descriptor the path was walked to and the name of its last segment — and acts on that pair only
(``openat``, ``fstatat``, ``mkdirat``, ``unlinkat``, the atomic write's ``renameat``), never
following a last link unless it is the reach prefix itself. Each then checks that the directory is
still beneath the prefix (`Located.ensure_beneath`). The answers are the ones the same operations
give on the path: ``None``, ``False`` or ``[]`` for nothing there, and the same `OSError` for a file
in the way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from toolwire.capabilities.kinds.fs_reach._atomic import replace_atomically_at
from toolwire.capabilities.kinds.fs_reach.beneath import DIRECTORY_FLAGS, Located, errors_named
from toolwire.capabilities.seams import DirEntry

__all__ = ["exists_at", "list_at", "mkdir_at", "mtime_at", "remove_in", "size_at", "write_at"]


def write_at(located: Located, payload: bytes) -> None:
    """Replace (or create) the file atomically, keeping an existing regular file's mode bits.

    ``located`` was walked with its missing directories created. A file in the way answers as
    creating the directories would: ``FileExistsError`` for the file's own parent,
    ``NotADirectoryError`` higher up.
    """
    if located.missing == errno.ENOTDIR and located.below_missing == 1:
        located.raise_missing(code=errno.EEXIST, depth=0)
    located.raise_missing(depth=1)
    located.ensure_beneath()
    try:
        info = located.lstat()
        mode = stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else None
    except FileNotFoundError:
        mode = None
    replace_atomically_at(
        located.dir_fd,
        located.name,
        payload,
        temp_name=f".{located.name}.",
        mode=mode,
        directory=os.path.dirname(located.path),
    )
    try:
        located.ensure_beneath()
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(located.name, dir_fd=located.dir_fd)
        raise


def exists_at(located: Located) -> bool:
    """Whether something (a link included, not followed) is there."""
    try:
        located.lstat()
    except OSError:
        return False
    located.ensure_beneath()
    return True


def list_at(located: Located) -> list[DirEntry]:
    """The directory's entries sorted by name (``[]`` when missing); ``is_dir`` never follows.

    Raises:
        NotADirectoryError: something else than a directory is there.
        PathNotReachableError: a link was swapped in for the directory.
    """
    if located.missing == errno.ENOENT:
        return []
    try:
        fd = located.open(os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        _refuse_a_new_link(located)
        raise
    try:
        located.ensure_beneath()
        with os.scandir(fd) as entries:
            found = [DirEntry(name=e.name, is_dir=e.is_dir(follow_symlinks=False)) for e in entries]
    finally:
        os.close(fd)
    return sorted(found, key=lambda entry: entry.name)


def mtime_at(located: Located) -> float | None:
    """The modification time, or ``None`` when nothing is there."""
    info = _stat_or_none(located)
    return None if info is None else info.st_mtime


def size_at(located: Located) -> int | None:
    """The size in bytes, or ``None`` when nothing is there."""
    info = _stat_or_none(located)
    return None if info is None else info.st_size


def _stat_or_none(located: Located) -> os.stat_result | None:
    if located.missing == errno.ENOENT:
        return None
    try:
        info = located.lstat(follow=True)
    except FileNotFoundError:
        return None
    located.ensure_beneath()
    return info


def mkdir_at(located: Located) -> None:
    """Create the directory (its parents were created by the walk); a no-op when it exists.

    Raises:
        FileExistsError: something else than a directory is there.
    """
    located.raise_missing(depth=1)
    try:
        with errors_named(located.path):
            os.mkdir(located.name, dir_fd=located.dir_fd)
    except FileExistsError:
        if not stat.S_ISDIR(located.lstat(follow=True).st_mode):
            raise
    located.ensure_beneath()


def remove_in(parent: Located, name: str) -> bool:
    """Unlink the entry ``name`` of the directory ``parent`` names (a link itself, never its
    target); ``False`` when it did not exist.

    Raises:
        IsADirectoryError: the entry is a directory (directories are never removed).
    """
    target = os.path.join(parent.path, name)
    if parent.missing == errno.ENOENT:
        return False
    try:
        with errors_named(target):
            dir_fd = parent.open(DIRECTORY_FLAGS)
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        _refuse_a_new_link(parent)
        raise
    try:
        parent.ensure_beneath()
        with errors_named(target):
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False) if name else None
            if info is None or stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "directories are not removed", target)
            os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    except IsADirectoryError:  # a directory swapped in after the look: still never removed
        raise IsADirectoryError(errno.EISDIR, "directories are not removed", target) from None
    finally:
        os.close(dir_fd)
    return True


def _refuse_a_new_link(located: Located) -> None:
    """Refuse when the last segment, link-free when walked, is a link now (a race)."""
    if located.follow:
        return
    try:
        mode = located.lstat().st_mode
    except OSError:
        return
    if stat.S_ISLNK(mode):
        raise located.became_a_link()
