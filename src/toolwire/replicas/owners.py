"""Resources that live on one replica: ids that name their owner, and the error elsewhere.

A background process runs on the machine that started it; a browser, on the machine that
launched it. With replicas, such a resource's id names its owner: ``3f9c0a1b2d4e@api-1``.
A call naming it that lands on another replica is answered ``not_available`` and never
forwarded (docs/scaling.md, "Local resources", says why): `ElsewhereError` carries what the
answer says — whose it is, whether that replica is alive (and where), and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolwire.results import Err, ErrorCode

if TYPE_CHECKING:
    from toolwire.replicas.directory import ReplicaDirectory, ReplicaInfo

__all__ = ["OWNED_SEPARATOR", "ElsewhereError", "ResourceOwner", "owner_of"]

OWNED_SEPARATOR = "@"


def owner_of(resource_id: str) -> str | None:
    """The replica an id names (``abc@api-1`` → ``api-1``); ``None`` for a plain id."""
    _, sep, owner = resource_id.rpartition(OWNED_SEPARATOR)
    return owner if sep and owner else None


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
        self, *, kind: str, resource_id: str, owner: str, here: str, owner_info: ReplicaInfo | None
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


@dataclass(frozen=True, kw_only=True, slots=True)
class ResourceOwner:
    """This replica, as the owner of the local resources it hands out.

    Attributes:
        replica_id: Its name, put in every id it hands out.
        directory: The heartbeats, to say whether another owner is alive (``None``: unknown,
            reported as alive).
    """

    replica_id: str
    directory: ReplicaDirectory | None = None

    def name(self, local_id: str) -> str:
        """``local_id`` as handed out: ``<local_id>@<replica id>``."""
        return f"{local_id}{OWNED_SEPARATOR}{self.replica_id}"

    def check(self, resource_id: str, kind: str) -> None:
        """Nothing when ``resource_id`` is this replica's (or names none).

        Raises:
            ElsewhereError: it names another replica.
        """
        owner = owner_of(resource_id)
        if owner is None or owner == self.replica_id:
            return
        info = self.directory.lookup(owner) if self.directory is not None else None
        if self.directory is None:
            from toolwire.replicas.directory import ReplicaInfo

            info = ReplicaInfo(replica_id=owner, address=None, started_at=0.0, seen_at=0.0)
        raise ElsewhereError(
            kind=kind, resource_id=resource_id, owner=owner, here=self.replica_id, owner_info=info
        )
