"""The seam of the ``fs_reach`` kind: `ScopedFs` and its `DirEntry`; `StatFs` and its `PathStat`."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, runtime_checkable

__all__ = ["DirEntry", "FileKind", "PathStat", "ScopedFs", "StatFs", "describe_kind"]

FileKind: TypeAlias = Literal[
    "file", "directory", "symlink", "fifo", "socket", "character device", "block device", "other"
]
"""What a directory entry is; only a ``"file"`` (a regular file) is ever read."""

_DESCRIPTIONS: dict[FileKind, str] = {
    "file": "a regular file",
    "directory": "a directory",
    "symlink": "a symbolic link",
    "fifo": "a named pipe (FIFO)",
    "socket": "a socket",
    "character device": "a character device",
    "block device": "a block device",
    "other": "a special file",
}


def describe_kind(kind: FileKind) -> str:
    """``kind`` in words, with its article: ``"a named pipe (FIFO)"``, ``"a socket"``, ..."""
    return _DESCRIPTIONS[kind]


@dataclass(frozen=True, kw_only=True, slots=True)
class PathStat:
    """What `ReachScopedFs.stat` tells about a path, without opening it.

    Attributes:
        path: The canonical path the asked one reaches, links below the reach prefix followed:
            the file a read or a write of the asked path touches.
        kind: What is there; ``None`` when nothing is.
        device: The file's device (``st_dev``; 0 when missing).
        inode: The file's inode (``st_ino``; 0 when missing). Every name of one file — hard
            links included — has the same ``(device, inode)``.
        links: Its number of hard links (0 when missing).
        size: Its size in bytes (0 when missing).
        mtime: Its modification time in seconds since the epoch; ``None`` when missing.
    """

    path: str
    kind: FileKind | None = None
    device: int = 0
    inode: int = 0
    links: int = 0
    size: int = 0
    mtime: float | None = None

    @property
    def exists(self) -> bool:
        """Whether something is at the path."""
        return self.kind is not None


@dataclass(frozen=True, kw_only=True, slots=True)
class DirEntry:
    """One entry of a directory listing."""

    name: str
    is_dir: bool


@runtime_checkable
class ScopedFs(Protocol):
    """File access limited to the tool's resolved read and write reach.

    Every refusal raises `PathNotReachableError` whose message starts ``PATH_NOT_REACHABLE:``.
    """

    async def read(self, path: str) -> str:
        """The file as UTF-8 text (invalid bytes replaced). Raises FileNotFoundError."""
        ...

    async def read_bytes(self, path: str) -> bytes:
        """The file's bytes. Raises FileNotFoundError."""
        ...

    async def write(self, path: str, data: str | bytes) -> None:
        """Write atomically (temporary file + rename); parents are created."""
        ...

    async def exists(self, path: str) -> bool:
        """Whether the path exists (within read reach)."""
        ...

    async def list(self, path: str) -> list[str]:
        """Entry names of a directory, sorted; empty when it does not exist."""
        ...

    async def list_entries(self, path: str) -> builtins.list[DirEntry]:
        """Entries with their kind, sorted by name; empty when the directory does not exist."""
        ...

    async def mtime(self, path: str) -> float | None:
        """Modification time in seconds since the epoch, or ``None`` when missing."""
        ...

    async def size(self, path: str) -> int | None:
        """The file's size in bytes, or ``None`` when missing (check before reading a file
        that could be huge)."""
        ...

    async def mkdir(self, path: str) -> None:
        """Create a directory and its parents; a no-op when it exists."""
        ...

    async def remove(self, path: str) -> bool:
        """Delete a file (or a symbolic link, never its target); ``False`` when it was absent.

        Raises:
            IsADirectoryError: the path is a directory.
        """
        ...


@runtime_checkable
class StatFs(Protocol):
    """A file seam that can describe a path without opening it."""

    async def stat(self, path: str) -> PathStat:
        """What is at ``path``: where it leads, kind, identity, size, modification time."""
        ...
