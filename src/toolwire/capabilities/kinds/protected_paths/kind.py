"""The ``protected_paths`` kind: the backends' protected paths, for the tools that write files.

A tool that declared write reach (``fs_reach(write=...)``) gets, as ``ctx.seam(PROTECTED_PATHS)``,
the `ProtectedPaths` toolwire was started with (``CapabilityBackends.protected_paths``: the
defaults, what it runs from, its config files, ``[sandbox] protected`` and ``unprotect``), so
the write tools can refuse them saying why (`toolwire.toolbox._protected`). Nobody declares it:
write reach implies it, and it needs no backend (the defaults apply without one).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution
from toolwire.capabilities.kinds.fs_reach.kind import FS_REACH
from toolwire.safety.protected_paths import ProtectedPaths, default_protected_paths

__all__ = ["PROTECTED_PATHS", "ProtectedPathsCapability"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ProtectedPathsCapability(Capability):
    """The protected paths, which write reach implies."""


_IMPLIED = ProtectedPathsCapability()


def _implied(call: Resolution) -> ProtectedPathsCapability | None:
    declared = call.capabilities.get(FS_REACH)
    return _IMPLIED if declared is not None and declared.write else None


def _resolve(_: ProtectedPathsCapability, call: Resolution) -> ProtectedPaths:
    return call.backends.protected_paths or default_protected_paths()


PROTECTED_PATHS: CapabilityKind[ProtectedPathsCapability, ProtectedPaths] = CapabilityKind(
    name="protected_paths",
    declaration=ProtectedPathsCapability,
    resolve=_resolve,
    implied=_implied,
)
"""Write reach → ``ctx.seam(PROTECTED_PATHS)``: the `ProtectedPaths` of the backends."""
