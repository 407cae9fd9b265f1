"""The ``archive`` kind: full-text search over past sessions, through ``ctx.seam(ARCHIVE)``.

The host records every message into a `SessionArchive` (``await archive.record(session, role,
text, at, personality=..., user=...)``) and gives it to the backends as
``kind_backends={"archive": archive}`` (``create_backends`` builds one in the state file). A
tool declaring ``archive()`` gets a `ScopedArchive` bound to the call:

| the call has | the search sees |
| --- | --- |
| a personality | that personality's messages, every session |
| no personality, a session recorded with a user | that user's messages, every session |
| neither | this session's messages |

So one personality (or user) never reads another's past.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution
from toolwire.capabilities.kinds.archive.seam import ArchiveHit, ArchiveScope, ScopedArchive

if TYPE_CHECKING:
    from toolwire.capabilities._backends import CapabilityBackends

__all__ = [
    "ARCHIVE",
    "ArchiveCapability",
    "ArchiveHit",
    "ArchiveScope",
    "ScopedArchive",
    "archive",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class ArchiveCapability(Capability):
    """Search the session archive, scoped to the call's personality, user or session."""


def archive() -> ArchiveCapability:
    """Declare full-text search over the session archive."""
    return ArchiveCapability()


def _backend(backends: CapabilityBackends) -> object | None:
    return backends.kind_backends.get("archive")


def _resolve(declared: ArchiveCapability, call: Resolution) -> ScopedArchive | None:
    from toolwire.capabilities.kinds.archive._base import SessionArchive
    from toolwire.capabilities.kinds.archive._scoped import ScopedSessionArchive

    backend = _backend(call.backends)
    if not isinstance(backend, SessionArchive):
        return None
    return ScopedSessionArchive(
        backend, session_id=call.scope.session_id, personality_id=call.scope.personality_id
    )


ARCHIVE: CapabilityKind[ArchiveCapability, ScopedArchive] = CapabilityKind(
    name="archive",
    declaration=ArchiveCapability,
    resolve=_resolve,
    backend=_backend,
    setup_hint="give CapabilityBackends kind_backends={'archive': SqliteSessionArchive(path)} "
    "(create_backends() builds one in .toolwire/state.db) and record messages into it",
)
"""``archive()`` → ``ctx.seam(ARCHIVE)``; needs ``kind_backends["archive"]``."""
