"""The ``fs_reach`` kind: file access within path prefixes, through ``ctx.scoped_fs``.

Each side (``read``, ``write``) is a list of prefixes (relative ones resolve against the call's
working directory) or ``"from-personality"``: the backends' ``personality_fs_reach`` is asked
once per call (``None`` or an exception means deny-all), else ``fs_read`` / ``fs_write`` are
used. The seam is a ``ReachScopedFs``; see ``docs/capabilities.md`` for the path rules.

**Attachments reach files too**: the files of a tool's declared attachments join its read side,
and a tool that declared attachments but no ``fs_reach`` gets a read-only reach over just those
files (the ``implied`` declaration below).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias, cast

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution, non_empty_strings
from toolwire.capabilities.kinds.attachments.kind import attachment_files
from toolwire.capabilities.kinds.fs_reach.seam import DirEntry, ScopedFs

if TYPE_CHECKING:
    from toolwire.capabilities._backends import FsReach

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

logger = logging.getLogger("toolwire.backends")

FROM_PERSONALITY: Literal["from-personality"] = "from-personality"
"""An ``fs_reach`` side that defers to the personality's derived reach."""

PathReach: TypeAlias = tuple[str, ...] | Literal["from-personality"]
"""One side of an ``fs_reach`` (read or write): path patterns, or `FROM_PERSONALITY`."""

_MEMO_KEY = "fs_reach.personality"


@dataclass(frozen=True, kw_only=True, slots=True)
class FsReachCapability(Capability):
    """File reach: absolute path prefixes, or ``"from-personality"``, per side."""

    read: PathReach = ()
    write: PathReach = ()


def _reach(side: str, value: Iterable[str] | str) -> PathReach:
    if value == FROM_PERSONALITY:
        return FROM_PERSONALITY
    return non_empty_strings(f"fs_reach({side})", value)


def fs_reach(
    read: Iterable[str] | Literal["from-personality"] = (),
    write: Iterable[str] | Literal["from-personality"] = (),
) -> FsReachCapability:
    """Declare file reach: path prefixes per side, or ``"from-personality"``."""
    return FsReachCapability(read=_reach("read", read), write=_reach("write", write))


def _implied(call: Resolution) -> FsReachCapability | None:
    """No file reach of its own, but attachments with files: read those files only."""
    return FsReachCapability() if attachment_files(call) else None


def call_reach(
    declared: FsReachCapability, call: Resolution
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(read, write)``: the prefixes ``declared`` reaches in this call (the attachments'
    files join the read side); the personality is asked at most once per resolution."""

    def side(value: PathReach, which: str) -> tuple[str, ...]:
        if value != FROM_PERSONALITY:
            return tuple(value)
        if _MEMO_KEY not in call.memo:
            call.memo[_MEMO_KEY] = _personality_reach(call)
        reach = cast("FsReach", call.memo[_MEMO_KEY])
        return reach.read if which == "read" else reach.write

    read = (*side(declared.read, "read"), *attachment_files(call))
    return read, side(declared.write, "write")


def _resolve(declared: FsReachCapability, call: Resolution) -> ScopedFs:
    from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs

    base_dir = os.path.abspath(call.scope.working_dir or os.getcwd())
    read, write = call_reach(declared, call)
    backends = call.backends
    return ReachScopedFs(
        read,
        write,
        deny=backends.always_deny,
        base_dir=base_dir,
        protected=backends.protected_paths,
    )


def _personality_reach(call: Resolution) -> FsReach:
    from toolwire.capabilities._backends import FsReach

    backends, personality_id = call.backends, call.scope.personality_id
    if backends.personality_fs_reach is None:
        return FsReach(read=tuple(backends.fs_read), write=tuple(backends.fs_write))
    try:
        reach = backends.personality_fs_reach(personality_id)
    except Exception:
        logger.warning(
            "toolwire: personality_fs_reach(%r) failed; denying all file reach",
            personality_id,
            exc_info=True,
        )
        return FsReach()
    return reach if isinstance(reach, FsReach) else FsReach()


FS_REACH: CapabilityKind[FsReachCapability, ScopedFs] = CapabilityKind(
    name="fs_reach",
    declaration=FsReachCapability,
    resolve=_resolve,
    context_field="scoped_fs",
    implied=_implied,
)
"""``fs_reach(read, write)`` → ``ctx.scoped_fs``; needs no backend; implied by attachments."""
