"""`ScopedSessionArchive`: the `ScopedArchive` one call gets, bound to its scope."""

from __future__ import annotations

from toolwire.capabilities.kinds.archive._base import SessionArchive
from toolwire.capabilities.kinds.archive.seam import ArchiveHit, ArchiveScope

__all__ = ["ScopedSessionArchive"]


class ScopedSessionArchive:
    """Searches ``backend`` within one call's scope: its personality's messages; without one,
    its session's user's (as recorded); without that either, its own session's.

    Args:
        backend: The archive the host records into.
        session_id: The call's session.
        personality_id: The call's personality, if any.
    """

    __slots__ = ("_backend", "_personality_id", "_session_id")

    def __init__(
        self, backend: SessionArchive, *, session_id: str, personality_id: str | None
    ) -> None:
        self._backend = backend
        self._session_id = session_id
        self._personality_id = personality_id

    async def scope(self) -> ArchiveScope:
        """Whose messages `search` sees (see the class docstring)."""
        if self._personality_id:
            return ArchiveScope(personality=self._personality_id)
        user = await self._backend.user_of(self._session_id)
        if user:
            return ArchiveScope(user=user)
        return ArchiveScope(session=self._session_id)

    async def search(self, query: str, limit: int = 10) -> list[ArchiveHit]:
        """The best matches of ``query`` in this call's scope (at most 50)."""
        return await self._backend.search(query, await self.scope(), limit)

    def __repr__(self) -> str:
        return (
            f"ScopedSessionArchive(session={self._session_id!r}, "
            f"personality={self._personality_id!r})"
        )
