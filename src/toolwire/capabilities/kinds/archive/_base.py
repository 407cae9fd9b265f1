"""`SessionArchive`: where the host records every message, and what searches them.

The values a backend stores are checked and cleaned here, once, for every backend: the text
loses NUL characters and lone surrogates (neither SQLite's binding nor PostgreSQL's ``text``
takes them) and is cut to ``max_text_chars``; times become aware UTC datetimes.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from datetime import UTC, datetime
from typing import NamedTuple

from anyio.abc import AsyncResource

from toolwire.capabilities.kinds.archive._query import SearchQuery, parse_query
from toolwire.capabilities.kinds.archive.seam import ArchiveHit, ArchiveScope
from toolwire.errors import StoreError

__all__ = [
    "DEFAULT_MAX_TEXT_CHARS",
    "MAX_HITS",
    "SNIPPET_CHARS",
    "ArchiveHit",
    "ArchiveScope",
    "ArchivedMessage",
    "SessionArchive",
    "check_limit",
    "check_max_text_chars",
    "checked_message",
    "clean_text",
    "clip_snippet",
    "moment",
    "optional_name",
]

DEFAULT_MAX_TEXT_CHARS = 100_000
"""How much of one message is stored and indexed (``max_text_chars``)."""
MAX_HITS = 50
"""The most hits one search answers, whatever ``limit`` asks."""
SNIPPET_CHARS = 300
"""The longest snippet, marker included."""


def clean_text(what: str, text: object, *, empty: bool = True) -> str:
    """``text`` without NUL characters or lone surrogates.

    Raises:
        StoreError: it is not a string, or is empty when ``empty`` is false.
    """
    if not isinstance(text, str):
        raise StoreError(f"archive: {what} must be a str, got {type(text).__name__}")
    if not empty and not text.strip():
        raise StoreError(f"archive: {what} must be a non-empty string")
    if "\x00" in text:
        text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def moment(at: datetime | float | None) -> datetime:
    """``at`` as an aware UTC datetime: ``None`` is now, a naive datetime is taken as UTC and a
    number as Unix seconds.

    Raises:
        StoreError: anything else, or a number that is not finite.
    """
    if at is None:
        return datetime.now(UTC)
    if isinstance(at, datetime):
        return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    if isinstance(at, int | float) and not isinstance(at, bool) and math.isfinite(at):
        return datetime.fromtimestamp(at, UTC)
    raise StoreError(f"archive: at must be a datetime or Unix seconds, got {at!r}")


class ArchivedMessage(NamedTuple):
    """One message as a backend stores it, checked and cleaned (`checked_message`)."""

    session: str
    role: str
    text: str
    at: datetime
    personality: str | None
    user: str | None


def checked_message(
    session: object,
    role: object,
    text: object,
    at: datetime | float | None,
    personality: object,
    user: object,
    max_text_chars: int,
) -> ArchivedMessage:
    """What `SessionArchive.record` was given, checked and cleaned, the text cut to
    ``max_text_chars``.

    Raises:
        StoreError: a session or role that is not a non-empty string, a text that is not a
            string, a bad ``at``, or a personality or user that is neither ``None`` nor a
            non-empty string.
    """
    return ArchivedMessage(
        session=clean_text("session", session, empty=False),
        role=clean_text("role", role, empty=False),
        text=clean_text("text", text)[:max_text_chars],
        at=moment(at),
        personality=optional_name("personality", personality),
        user=optional_name("user", user),
    )


def clip_snippet(snippet: str) -> str:
    """``snippet`` on one line and at most `SNIPPET_CHARS` long."""
    flat = " ".join(snippet.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"


def check_limit(limit: object) -> int:
    """``limit`` clamped to 1..`MAX_HITS`.

    Raises:
        StoreError: it is not an int.
    """
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise StoreError(f"archive: limit must be an int, got {type(limit).__name__}")
    return max(1, min(MAX_HITS, limit))


class SessionArchive(AsyncResource):
    """Every recorded message of every session, searchable by words.

    Give it to the backends as ``kind_backends={"archive": archive}``; tools declaring the
    ``archive`` kind search it within their scope. Close it with `aclose` or ``async with``.

    A backend stores what `record` checked (`_insert`) and answers what `search` parsed
    (`_search`), and sets ``_max_text_chars`` from its ``max_text_chars`` argument.
    """

    _max_text_chars: int = DEFAULT_MAX_TEXT_CHARS

    async def record(
        self,
        session: str,
        role: str,
        text: str,
        at: datetime | float | None = None,
        *,
        personality: str | None = None,
        user: str | None = None,
    ) -> None:
        """Archive one message of ``session``.

        Args:
            session: The session's id.
            role: Who said it (``user``, ``assistant``, ``tool``, ...).
            text: What was said; cut to ``max_text_chars``.
            at: When (default: now; naive datetimes are UTC; numbers are Unix seconds).
            personality: The personality the session ran as; searches under it see this.
            user: The human the session was with; searches of that user see this.

        Raises:
            StoreError: a session or role that is not a non-empty string, a bad ``at``, or
                the store failed.
        """
        message = checked_message(session, role, text, at, personality, user, self._max_text_chars)
        await self._insert(message)

    @abstractmethod
    async def _insert(self, message: ArchivedMessage) -> None:
        """Store one message `record` checked."""

    async def search(self, query: str, scope: ArchiveScope, limit: int = 10) -> list[ArchiveHit]:
        """The best matches of ``query`` within ``scope``, best first, newest first on ties.

        ``query`` is the model's text (see `toolwire.capabilities.kinds.archive._query`); nothing in
        it can raise. ``limit`` is clamped to 1..50.
        """
        parsed = parse_query(clean_text("query", query))
        if parsed.empty:
            return []
        return await self._search(parsed, scope, check_limit(limit))

    @abstractmethod
    async def _search(
        self, parsed: SearchQuery, scope: ArchiveScope, limit: int
    ) -> list[ArchiveHit]:
        """The best ``limit`` matches of a non-empty ``parsed`` query within ``scope``."""

    @abstractmethod
    async def user_of(self, session: str) -> str | None:
        """The user ``session``'s messages were recorded with (the latest one), or ``None``."""

    @abstractmethod
    async def forget(self, session: str) -> int:
        """Delete every message of ``session``; how many were deleted."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release files and connections; the archive is unusable afterwards."""


def optional_name(what: str, value: object) -> str | None:
    """``value`` when it is ``None`` or a non-empty string.

    Raises:
        StoreError: anything else.
    """
    if value is None:
        return None
    return clean_text(what, value, empty=False)


def check_max_text_chars(value: object) -> int:
    """``value`` when it is a positive int.

    Raises:
        StoreError: anything else.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise StoreError(f"archive: max_text_chars must be a positive int, got {value!r}")
    return value
