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

from toolwire.capabilities.seams import ElsewhereError

if TYPE_CHECKING:
    from toolwire.replicas._directory import ReplicaDirectory

__all__ = ["OWNED_SEPARATOR", "ResourceOwner", "owner_of"]

OWNED_SEPARATOR = "@"


def owner_of(resource_id: str) -> str | None:
    """The replica an id names (``abc@api-1`` → ``api-1``); ``None`` for a plain id."""
    _, sep, owner = resource_id.rpartition(OWNED_SEPARATOR)
    return owner if sep and owner else None


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
            from toolwire.replicas._directory import ReplicaInfo

            info = ReplicaInfo(replica_id=owner, address=None, started_at=0.0, seen_at=0.0)
        raise ElsewhereError(
            kind=kind, resource_id=resource_id, owner=owner, here=self.replica_id, owner_info=info
        )
