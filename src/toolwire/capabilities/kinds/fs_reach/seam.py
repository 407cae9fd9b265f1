"""The seam of the ``fs_reach`` kind: `ScopedFs` and its `DirEntry`."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["DirEntry", "ScopedFs"]


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
