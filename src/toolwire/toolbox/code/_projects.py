"""Finding the project a path belongs to, from its marker files.

`detect_project` walks up from the path (a file's directory, or the directory itself) through
the tool's ``ScopedFs``: the first directory holding a marker file is the project root, and
every ecosystem whose marker is there is the project's. The walk stops at the edge of read
reach (a directory the seam refuses is never listed) and at the filesystem root.

| ecosystem | markers |
| --- | --- |
| ``python`` | ``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``requirements.txt`` |
| ``javascript`` | ``package.json``, ``tsconfig.json`` |
| ``rust`` | ``Cargo.toml`` |
| ``go`` | ``go.mod`` |
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from toolwire.capabilities.seams import ScopedFs
from toolwire.errors import CapabilityError

__all__ = ["ECOSYSTEMS", "MARKERS", "Project", "detect_project"]

ECOSYSTEMS: tuple[str, ...] = ("python", "javascript", "rust", "go")
"""Every ecosystem, in the order their checkers run."""

MARKERS: dict[str, tuple[str, ...]] = {
    "python": ("pyproject.toml", "setup.cfg", "setup.py", "requirements.txt"),
    "javascript": ("package.json", "tsconfig.json"),
    "rust": ("Cargo.toml",),
    "go": ("go.mod",),
}
"""The files that mark a directory as the root of a project of each ecosystem."""

MAX_LEVELS = 64
"""How many directories the walk climbs at most."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Project:
    """A project root and what it is made of.

    Attributes:
        root: The absolute root directory.
        ecosystems: The ecosystems whose markers it holds, in `ECOSYSTEMS` order.
        files: The names of the root's entries (to look for configuration files).
    """

    root: str
    ecosystems: tuple[str, ...]
    files: frozenset[str]

    def has(self, name: str) -> bool:
        """Whether the root holds an entry called ``name``."""
        return name in self.files

    def path(self, *parts: str) -> str:
        """An absolute path below the root."""
        return os.path.join(self.root, *parts)

    def relative(self, path: str) -> str:
        """``path`` relative to the root (``.`` for the root), or as is when outside it."""
        if path == self.root:
            return "."
        prefix = self.root.rstrip("/") + "/"
        return path[len(prefix) :] if path.startswith(prefix) else path


def _normal(path: str) -> str:
    return os.path.normpath(path)


def _parent(path: str) -> str:
    return os.path.dirname(path)


async def detect_project(fs: ScopedFs, start: str) -> Project | None:
    """The nearest project at or above the directory ``start``; ``None`` when there is none.

    Args:
        fs: The tool's file seam; only directories in its read reach are listed.
        start: An absolute directory.

    Raises:
        CapabilityError: ``start`` itself is out of read reach.
    """
    directory = _normal(start)
    for level in range(MAX_LEVELS):
        try:
            names = frozenset(await fs.list(directory))
        except CapabilityError:
            if level == 0:
                raise
            return None
        except OSError:
            names = frozenset()
        found = tuple(eco for eco in ECOSYSTEMS if any(m in names for m in MARKERS[eco]))
        if found:
            return Project(root=directory, ecosystems=found, files=names)
        parent = _parent(directory)
        if parent == directory:
            return None
        directory = parent
    return None
