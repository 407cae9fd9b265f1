"""The built-in capability kinds, one folder each, and `KINDS`: the table the resolver loops over.

To add a kind: make its folder here — a ``kind`` module (its `Capability` declaration and
factory, and its `CapabilityKind` record), a ``seam`` module (the protocol a tool sees and its
values), its backends beside them, and a package init re-exporting what the ``kind`` module
exports — then add the record to `KINDS`.
A kind that is not in spec 01 leaves ``context_field`` unset: its seam reaches the tool as
``ctx.seam(KIND)`` with no change to `ToolContext`. Its backend, if it needs one, goes in
``CapabilityBackends.kind_backends[<name>]``.

Rooms, one folder per kind (in each: kind.py, the declaration and row; seam.py; backends):

- ``fs_reach/``: file access within declared path prefixes (`ReachScopedFs`);
- ``protected_paths/``: the protected paths, for the tools that write files;
- ``network/``: safe HTTP to the declared hosts (`SafeFetcher`, the shared network policy);
- ``process/``: child processes of declared binaries, background processes, the sandbox;
- ``storage/``: a key-value store in one scope; ``shared_storage/``: stores of picked scopes;
- ``secrets/``: declared secret refs, resolved for the call;
- ``attachments/``: the turn's attachments of the declared kinds;
- ``archive/``: full-text search over past sessions (SQLite FTS5, PostgreSQL);
- ``browser/``: the shared Chromium, one browser context per session;
- ``subagent/``: sub-agents for the ``task`` tool (`Delegation`, runners, pricing).
"""

from __future__ import annotations

from typing import Any

from toolwire.capabilities.kind import CapabilityKind
from toolwire.capabilities.kinds.archive.kind import ARCHIVE
from toolwire.capabilities.kinds.attachments.kind import ATTACHMENTS
from toolwire.capabilities.kinds.fs_reach.kind import FS_REACH
from toolwire.capabilities.kinds.network.kind import NETWORK
from toolwire.capabilities.kinds.process.kind import PROCESS
from toolwire.capabilities.kinds.protected_paths.kind import PROTECTED_PATHS
from toolwire.capabilities.kinds.secrets.kind import SECRETS
from toolwire.capabilities.kinds.shared_storage.kind import SHARED_STORAGE
from toolwire.capabilities.kinds.storage.kind import STORAGE
from toolwire.capabilities.kinds.subagent.kind import SUBAGENT

__all__ = [
    "ARCHIVE",
    "ATTACHMENTS",
    "FS_REACH",
    "KINDS",
    "NETWORK",
    "PROCESS",
    "PROTECTED_PATHS",
    "SECRETS",
    "SHARED_STORAGE",
    "STORAGE",
    "SUBAGENT",
]

KINDS: tuple[CapabilityKind[Any, Any], ...] = (
    NETWORK,
    SECRETS,
    STORAGE,
    FS_REACH,
    PROCESS,
    ATTACHMENTS,
    SUBAGENT,
    SHARED_STORAGE,
    ARCHIVE,
    PROTECTED_PATHS,
)
"""The built-in kinds, in resolution order (also the order `ToolCapabilities.declared` uses)."""
