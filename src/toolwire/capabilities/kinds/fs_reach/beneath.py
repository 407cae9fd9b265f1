"""Walking a checked path beneath its reach prefix by directory descriptors: `walk_beneath`.

Checking a path and then handing the *path* to the operating system loses a race: between the
two, a directory on the way can become a symbolic link to anywhere, and the kernel follows it.
So the file seam never opens a path by its name below a reach prefix. It opens the prefix (the
layout above it is the operator's, so links there are followed), then each segment below it
*relative to the directory descriptor before it*:

* a segment is looked at with ``fstatat(AT_SYMLINK_NOFOLLOW)``;
* a directory is opened with ``O_PATH | O_DIRECTORY | O_NOFOLLOW`` and its descriptor must be
  the directory that was looked at (same device and inode), or the walk starts again;
* a symbolic link is read (``readlinkat``) and the walk ends with the rewritten path, which the
  caller checks again from the deny floor, exactly as for a link found by ``lstat``;
* the walk stops at the first missing segment (or creates it, for a write).

The answer, a `Located`, holds the descriptor of the directory the last segment is in and that
segment's name; the operations act on that pair (``openat``, ``fstatat``, ``renameat``,
``unlinkat``, all without following a last link) and then check that the directory is still
beneath the prefix by its device and inode ancestry (`Located.ensure_beneath`). A link swapped
in after the walk is therefore never followed: it makes the call fail, or resolve again.
Directories are opened ``O_PATH`` where the system has it (``O_RDONLY`` elsewhere).

``openat2(RESOLVE_BENEATH)`` is not used: it refuses every link that leaves the directory,
where the reach policy follows a link to another allowed prefix and checks the deny floor on
the path it leads to; answering as before needs the walk.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from types import TracebackType

from toolwire.errors import PathNotReachableError

__all__ = ["DIRECTORY_FLAGS", "MAX_ANCESTRY", "Located", "errors_named", "walk_beneath"]

MAX_ANCESTRY = 2048
"""Parent directories climbed, at most, to find the prefix again (``PATH_MAX / 2``)."""

_MAX_RETRIES = 32  # directories created and gone again under one walk before it gives up
DIRECTORY_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC
"""How the walk opens a directory: only as a place to look up names (``O_PATH`` where there is
one, so a directory that may be searched but not listed is walked as before)."""


class Located:
    """Where a checked path leads: a directory descriptor and the name of the last segment in it.

    A context manager: leaving it closes the descriptor.

    Attributes:
        path: The canonical, link-free path (what `ReachScopedFs.check_reach` answers).
        dir_fd: The directory holding `name`, reached without following any link below the
            prefix; ``-1`` when `missing` is set.
        name: The last segment (``"."`` for ``/`` itself).
        follow: Whether `name` is the reach prefix itself, whose links are the operator's
            layout and are followed.
        missing: ``0``, or the ``errno`` with which the walk stopped *above* `name`
            (``ENOENT``: a directory on the way is missing; ``ENOTDIR``: a file is in the way).
        below_missing: How many segments come after the one that stopped the walk.
    """

    __slots__ = (
        "_anchor",
        "asked",
        "below_missing",
        "dir_fd",
        "follow",
        "kind",
        "missing",
        "name",
        "path",
    )

    def __init__(
        self,
        *,
        path: str,
        asked: str,
        kind: str,
        dir_fd: int = -1,
        name: str = "",
        follow: bool = False,
        missing: int = 0,
        below_missing: int = 0,
        anchor: tuple[int, int] = (0, 0),
    ) -> None:
        self.path, self.asked, self.kind = path, asked, kind
        self.dir_fd, self.name, self.follow = dir_fd, name, follow
        self.missing, self.below_missing = missing, below_missing
        self._anchor = anchor

    def __enter__(self) -> Located:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the directory descriptor (idempotent)."""
        if self.dir_fd >= 0:
            os.close(self.dir_fd)
            self.dir_fd = -1

    def lstat(self, *, follow: bool = False) -> os.stat_result:
        """``fstatat`` of `name`, following a last link only when asked *and* `name` is the
        prefix itself. Raises the walk's error when `missing`."""
        self.raise_missing()
        with errors_named(self.path):
            return os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=follow and self.follow)

    def raise_missing(self, *, code: int | None = None, depth: int | None = None) -> None:
        """Raise the `OSError` that stopped the walk (as ``code`` when given), if one did.

        It names the whole path, or with ``depth`` the path down to the segment that stopped
        the walk and ``depth`` segments more, as the same call on the path would name it.
        """
        if self.missing:
            cut = 0 if depth is None else max(0, self.below_missing - depth)
            named = (self.path.rsplit("/", cut)[0] or "/") if cut else self.path
            code = code or self.missing
            raise OSError(code, os.strerror(code), named)

    def open(self, flags: int, mode: int = 0o777) -> int:
        """``openat`` of `name` in `dir_fd`: ``O_NOFOLLOW`` unless `name` is the prefix itself."""
        self.raise_missing()
        nofollow = 0 if self.follow else os.O_NOFOLLOW
        with errors_named(self.path):
            return os.open(self.name, flags | nofollow | os.O_CLOEXEC, mode, dir_fd=self.dir_fd)

    def became_a_link(self) -> PathNotReachableError:
        """The refusal for a last segment found to be a link after the walk (a race)."""
        return PathNotReachableError(
            f'PATH_NOT_REACHABLE: {self.kind} of "{self.asked}" became a symbolic link'
        )

    def ensure_beneath(self) -> None:
        """Check that `dir_fd` is still beneath the prefix, by device and inode ancestry.

        Raises:
            PathNotReachableError: the directory was moved out of the prefix (or removed).
        """
        if self.dir_fd < 0 or _climbs_to(self.dir_fd, self._anchor):
            return
        raise PathNotReachableError(
            f'PATH_NOT_REACHABLE: {self.kind} of "{self.asked}" moved outside the allowlist '
            "while it was being used"
        )


@contextlib.contextmanager
def errors_named(path: str) -> Iterator[None]:
    """Re-raise an `OSError` from a call made relative to a descriptor with ``path`` as its file
    name (the call itself knows only the last segment)."""
    try:
        yield
    except PathNotReachableError:
        raise
    except OSError as exc:
        if exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, path) from None


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def _climbs_to(fd: int, anchor: tuple[int, int]) -> bool:
    """Whether climbing ``..`` from the directory ``fd`` reaches the directory ``anchor``."""
    seen = _identity(os.fstat(fd))
    current, owned = fd, False
    try:
        for _ in range(MAX_ANCESTRY):
            if seen == anchor:
                return True
            parent = os.open("..", DIRECTORY_FLAGS, dir_fd=current)
            if owned:
                os.close(current)
            current, owned = parent, True
            above = _identity(os.fstat(current))
            if above == seen:  # the file system's root is its own parent
                return False
            seen = above
        return False
    except OSError:
        return False
    finally:
        if owned:
            os.close(current)


def _segments_below(path: str, prefix: str) -> list[str]:
    below = path[len(prefix) :] if prefix != "/" else path
    return [segment for segment in below.split("/") if segment]


def _open_anchor(directory: str, create: bool) -> int:
    """The directory ``directory`` (links followed: the operator's layout), created if asked."""
    try:
        return os.open(directory, DIRECTORY_FLAGS)
    except FileNotFoundError:
        if not create:
            raise
    os.makedirs(directory, exist_ok=True)
    return os.open(directory, DIRECTORY_FLAGS)


def walk_beneath(path: str, prefix: str, *, asked: str, kind: str, create: bool) -> Located | str:
    """Walk ``path`` from the reach prefix ``prefix`` it is in, one descriptor at a time.

    Args:
        path: A canonical path that passed the deny floor and is under ``prefix``.
        prefix: The matched reach prefix.
        asked: The path as the caller gave it (for messages).
        kind: ``"read"`` or ``"write"`` (for messages).
        create: Create the missing directories on the way (for a write).

    Returns:
        The `Located` last segment; or a path to check again: the path rewritten through the
        first link below the prefix, or ``path`` itself when a segment changed under the walk.
    """
    below = _segments_below(path, prefix)
    at_prefix = not below
    if at_prefix:  # the prefix itself: its parent is opened, its own links are followed
        parent, name = os.path.split(path)
        start, below = (path, ["."]) if not name else (parent, [name])
    else:
        start = prefix
    try:
        fd = _open_anchor(start, create)
    except OSError as exc:
        missing = exc.errno or errno.EIO
        return Located(path=path, asked=asked, kind=kind, missing=missing, below_missing=len(below))
    try:
        anchor = _identity(os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    step = (fd, 0, 0) if at_prefix else _walk(fd, start, below, create)
    if isinstance(step, str):
        return path if step == "" else step
    dir_fd, index, missing = step
    return Located(
        path=path,
        asked=asked,
        kind=kind,
        dir_fd=dir_fd,
        name=below[-1],
        follow=at_prefix,
        missing=missing,
        below_missing=len(below) - 1 - index,
        anchor=anchor,
    )


def _walk(fd: int, start: str, below: list[str], create: bool) -> tuple[int, int, int] | str:
    """``(directory fd, index of the segment the walk stopped at, errno or 0)``, or a path to
    check again (``""``: the same path, a segment changed under the walk).

    Owns ``fd``: closes it, or hands it (or the descriptor it led to) back.
    """
    index, last, retries = 0, len(below) - 1, 0
    try:
        while True:
            segment = below[index]
            try:
                info = os.stat(segment, dir_fd=fd, follow_symlinks=False)
            except OSError as exc:
                if index == last:
                    fd, held = -1, fd
                    return held, index, 0
                if create and exc.errno == errno.ENOENT and retries < _MAX_RETRIES:
                    retries += 1
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(segment, dir_fd=fd)
                    continue  # look again at what is there now
                return -1, index, exc.errno or errno.EIO
            if stat.S_ISLNK(info.st_mode):
                try:
                    target = os.readlink(segment, dir_fd=fd)
                except OSError:
                    return ""  # no longer a link: look again
                walked = os.path.join(start, *below[:index])
                joined = os.path.normpath(os.path.join(walked, target, *below[index + 1 :]))
                return "/" + joined.lstrip("/")
            if index == last:
                fd, held = -1, fd
                return held, index, 0
            if not stat.S_ISDIR(info.st_mode):
                return -1, index, errno.ENOTDIR
            try:
                child = os.open(segment, DIRECTORY_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:
                return ""  # no longer a directory: look again
            os.close(fd)
            fd = child
            if _identity(os.fstat(fd)) != _identity(info):
                return ""  # another directory than the one looked at: look again
            index += 1
    except OSError as exc:  # a directory on the way could not be created
        return -1, index, exc.errno or errno.EIO
    finally:
        if fd >= 0:
            os.close(fd)
