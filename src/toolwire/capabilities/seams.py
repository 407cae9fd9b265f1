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
from typing import Protocol, runtime_checkable

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
from toolwire.results import Err, ErrorCode

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
    "ElsewhereError",
    "FetchResponse",
    "KeyValueStore",
    "LogStream",
    "NetworkPolicy",
    "OpenedAttachment",
    "ParentContext",
    "ProcessResult",
    "ProcessStatus",
    "ReadRecord",
    "ReplicaDescription",
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


@runtime_checkable
class ReplicaDescription(Protocol):
    """What an `ElsewhereError` says of the replica that owns a resource (a heartbeat record)."""

    def describe(self) -> str:
        """The replica in words: its name and where it answers."""
        ...


class ElsewhereError(LookupError):
    """A resource that belongs to another replica (a `LookupError`: to code that only knows
    "not here", it is not here).

    Attributes:
        kind: What it is ("background process").
        resource_id: The id the call named.
        owner: The replica it belongs to.
        here: The replica the call landed on.
        owner_info: The owner's last heartbeat; ``None`` when it is not alive.
    """

    def __init__(
        self,
        *,
        kind: str,
        resource_id: str,
        owner: str,
        here: str,
        owner_info: ReplicaDescription | None,
    ) -> None:
        self.kind = kind
        self.resource_id = resource_id
        self.owner = owner
        self.here = here
        self.owner_info = owner_info
        super().__init__(self.message)

    @property
    def alive(self) -> bool:
        """Whether the owner was alive at the last heartbeat read."""
        return self.owner_info is not None

    @property
    def message(self) -> str:
        """What the model (and the operator reading the log) is told."""
        head = (
            f"{self.kind} {self.resource_id!r} belongs to replica {self.owner!r}, and this call "
            f"was served by replica {self.here!r}"
        )
        if self.owner_info is None:
            return (
                f"{head}. Replica {self.owner!r} has stopped (no heartbeat), so the "
                f"{self.kind} is gone with it: start a new one."
            )
        return (
            f"{head}. It cannot be reached from here. Retry the call (a load balancer may send "
            f"it to {self.owner_info.describe()}); an operator can route this session to that "
            f"replica. Or start a new {self.kind} here."
        )

    def to_err(self) -> Err:
        """The ``not_available`` answer: reason ``owned_by_another_replica``, or
        ``owner_replica_gone`` when the owner has stopped."""
        reason = "owned_by_another_replica" if self.alive else "owner_replica_gone"
        return Err(self.message, ErrorCode.NOT_AVAILABLE, reason=reason)
