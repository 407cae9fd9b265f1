"""The ``fs_reach`` kind: file access within declared path prefixes.

``kind.py`` (declaration and row), ``seam.py`` (`ScopedFs`, `DirEntry`), ``_scoped.py``
(`ReachScopedFs`: the seam behind the deny floor), ``beneath.py`` (walking a path by directory
descriptors, race-free), ``_file_operations.py`` (what is done at a walked path),
``regular_files.py`` (reads that never block), ``_atomic.py`` (atomic replacement).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.fs_reach.kind import (
        FROM_PERSONALITY,
        FS_REACH,
        DirEntry,
        FsReachCapability,
        PathReach,
        ScopedFs,
        call_reach,
        fs_reach,
    )

__all__ = [
    "FROM_PERSONALITY",
    "FS_REACH",
    "DirEntry",
    "FsReachCapability",
    "PathReach",
    "ScopedFs",
    "call_reach",
    "fs_reach",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "FROM_PERSONALITY": "toolwire.capabilities.kinds.fs_reach.kind",
        "FS_REACH": "toolwire.capabilities.kinds.fs_reach.kind",
        "DirEntry": "toolwire.capabilities.kinds.fs_reach.kind",
        "FsReachCapability": "toolwire.capabilities.kinds.fs_reach.kind",
        "PathReach": "toolwire.capabilities.kinds.fs_reach.kind",
        "ScopedFs": "toolwire.capabilities.kinds.fs_reach.kind",
        "call_reach": "toolwire.capabilities.kinds.fs_reach.kind",
        "fs_reach": "toolwire.capabilities.kinds.fs_reach.kind",
    },
    globals(),
)
