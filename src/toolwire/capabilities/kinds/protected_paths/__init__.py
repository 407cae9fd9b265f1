"""The ``protected_paths`` kind: the backends' protected paths, for the tools that write files.

``kind.py`` holds the declaration and its row; the list itself is `toolwire.safety.protected_paths`,
shared with the sandbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.protected_paths.kind import (
        PROTECTED_PATHS,
        ProtectedPathsCapability,
    )

__all__ = [
    "PROTECTED_PATHS",
    "ProtectedPathsCapability",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "PROTECTED_PATHS": "toolwire.capabilities.kinds.protected_paths.kind",
        "ProtectedPathsCapability": "toolwire.capabilities.kinds.protected_paths.kind",
    },
    globals(),
)
