"""The seam of the ``archive`` kind: `ScopedArchive`, full-text search over past sessions, and
the values it answers (`ArchiveHit`, `ArchiveScope`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

__all__ = ["ArchiveHit", "ArchiveScope", "ScopedArchive"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ArchiveScope:
    """Whose messages a search sees: one personality's, one user's or one session's.

    Exactly one field is set.
    """

    personality: str | None = None
    user: str | None = None
    session: str | None = None

    def __post_init__(self) -> None:
        if sum(value is not None for value in (self.personality, self.user, self.session)) != 1:
            raise ValueError("ArchiveScope takes exactly one of personality, user or session")

    @property
    def label(self) -> str:
        """``personality:<id>``, ``user:<id>`` or ``session:<id>``."""
        if self.personality is not None:
            return f"personality:{self.personality}"
        if self.user is not None:
            return f"user:{self.user}"
        return f"session:{self.session}"


@dataclass(frozen=True, kw_only=True, slots=True)
class ArchiveHit:
    """One message that matched a search.

    Attributes:
        session: The session it was said in.
        role: Who said it (``user``, ``assistant``, ``tool``, ...).
        at: When (UTC).
        snippet: The best-matching part, matched words marked ``**like this**``, at most
            a few hundred characters.
        score: Relevance; higher is better, comparable only within one search.
    """

    session: str
    role: str
    at: datetime
    snippet: str
    score: float


@runtime_checkable
class ScopedArchive(Protocol):
    """Searches the session archive within the call's scope (see the ``archive`` kind)."""

    async def search(self, query: str, limit: int = 10) -> list[ArchiveHit]:
        """The best matches of ``query``, best first and newest first on ties.

        Any text is a valid query: words, ``"exact phrases"``, ``-excluded`` words and ``OR``
        between alternatives; anything else is ignored. At most 50 hits.
        """
        ...

    async def scope(self) -> ArchiveScope:
        """Whose messages `search` sees."""
        ...
