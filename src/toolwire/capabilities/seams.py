"""The capability seams a tool sees on its `ToolContext`: interfaces and the values they carry.

The registry resolves only what a tool declared (see `toolwire.capabilities`) and hands the tool
these scoped objects; implementations live in `toolwire.backends`. A tool never imports
``os``, ``subprocess`` or an HTTP client to reach the world: it goes through these.

One module per kind, named like the kind (``toolwire.capabilities.kinds.process.seam`` is the seam
of ``toolwire.capabilities.kinds.process.kind``, which re-exports it). The seams sit below the
implementations, which build their values, and the kinds sit above them, since a kind's ``resolve``
builds an implementation: so nothing imports in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.capabilities.kinds.archive.seam import ArchiveHit, ArchiveScope, ScopedArchive
from toolwire.capabilities.kinds.attachments.seam import (
    Attachment,
    AttachmentKind,
    OpenedAttachment,
    ScopedAttachments,
)
from toolwire.capabilities.kinds.fs_reach.seam import DirEntry, ScopedFs
from toolwire.capabilities.kinds.network.seam import FetchResponse, NetworkPolicy, ScopedFetch
from toolwire.capabilities.kinds.process.seam import (
    DEFAULT_OWNER,
    STREAMS,
    BackgroundProcess,
    BackgroundProcesses,
    LogStream,
    ProcessResult,
    ProcessStatus,
    ScopedProcess,
    WatchResult,
)
from toolwire.capabilities.kinds.secrets.seam import ScopedSecrets
from toolwire.capabilities.kinds.shared_storage.seam import SharedStores
from toolwire.capabilities.kinds.storage.seam import AtomicKeyValueStore, KeyValueStore
from toolwire.capabilities.kinds.subagent.seam import (
    ParentContext,
    ScopedSubagents,
    SubagentReport,
    SubagentRequest,
    SubagentStop,
    SubagentToolUse,
    SubagentUsage,
)

__all__ = [
    "DEFAULT_OWNER",
    "STREAMS",
    "ArchiveHit",
    "ArchiveScope",
    "AtomicKeyValueStore",
    "Attachment",
    "AttachmentKind",
    "BackgroundProcess",
    "BackgroundProcesses",
    "DirEntry",
    "FetchResponse",
    "KeyValueStore",
    "LogStream",
    "NetworkPolicy",
    "OpenedAttachment",
    "ParentContext",
    "ProcessResult",
    "ProcessStatus",
    "ReadRecord",
    "ScopedArchive",
    "ScopedAttachments",
    "ScopedFetch",
    "ScopedFs",
    "ScopedProcess",
    "ScopedSecrets",
    "ScopedSubagents",
    "SharedStores",
    "SubagentReport",
    "SubagentRequest",
    "SubagentStop",
    "SubagentToolUse",
    "SubagentUsage",
    "WatchResult",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class ReadRecord:
    """What `read_file` remembers about a file, for STALE_WRITE checks."""

    mtime: float
    read_at_turn: int
