"""`SessionClaims`: which replica holds each session's browser, on the shared store.

A browser context lives in the Chromium of the replica that opened it. The first browser call
of a session claims the session for this replica (``<session id>`` → ``<replica id>`` in the
store's ``tool:toolwire.browser_claims`` namespace); a browser call of that session landing on
another replica is refused with `ElsewhereError` (``not_available``,
``owned_by_another_replica``) while the owner is alive, rather than silently opening a second,
empty browser beside the first. Closing the context (or its eviction) releases the claim. A
claim whose replica has stopped is taken over: the pages died with that replica, and the
session starts a new browser here.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from toolwire.capabilities.seams import ElsewhereError

if TYPE_CHECKING:
    from toolwire.replicas.owners import ResourceOwner
    from toolwire.stores._base import KeyValueBackend

__all__ = ["CLAIMS_TOOL", "SessionClaims"]

logger = logging.getLogger("toolwire.replicas.claims")

CLAIMS_TOOL = "toolwire.browser_claims"
"""The store namespace (``tool:toolwire.browser_claims``; not a valid tool name)."""
DEFAULT_CLAIM_TTL_S = 24 * 3600.0


class SessionClaims:
    """Claims of sessions' browsers by replicas (see the module docstring).

    Args:
        backend: The shared store.
        owner: This replica (its id, and the heartbeats that say whether another is alive).
        kind: What is claimed, as the refusal names it.
        ttl_s: How long a claim lives without being released.
    """

    def __init__(
        self,
        backend: KeyValueBackend,
        owner: ResourceOwner,
        *,
        kind: str = "browser session",
        ttl_s: float = DEFAULT_CLAIM_TTL_S,
    ) -> None:
        self._store = backend.scoped(CLAIMS_TOOL, f"tool:{CLAIMS_TOOL}")
        self._owner = owner
        self._kind = kind
        self._ttl_s = ttl_s

    async def claim(self, session_id: str) -> None:
        """Claim ``session_id`` for this replica.

        Raises:
            ElsewhereError: another replica holds it and is alive.
            StoreError: the store could not be reached.
        """
        here = self._owner.replica_id
        holder = await self._store.get(session_id)
        if holder is not None and holder != here:
            directory = self._owner.directory
            info = directory.lookup(holder) if directory is not None else None
            if info is not None:
                raise ElsewhereError(
                    kind=self._kind,
                    resource_id=session_id,
                    owner=holder,
                    here=here,
                    owner_info=info,
                )
            logger.info(
                "%s of %s: replica %s has stopped; taken over", self._kind, session_id, holder
            )
        await self._store.set(session_id, here, ttl_seconds=self._ttl_s)

    async def release(self, session_id: str) -> None:
        """Drop this replica's claim of ``session_id`` (another replica's is left alone)."""
        if await self._store.get(session_id) == self._owner.replica_id:
            await self._store.delete(session_id)

    async def holder(self, session_id: str) -> str | None:
        """The replica holding ``session_id``'s browser, or ``None``."""
        return await self._store.get(session_id)
