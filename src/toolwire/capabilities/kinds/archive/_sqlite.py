"""`SqliteSessionArchive`: the session archive in a SQLite file, searched with FTS5.

It lives in the same file as the SQLite key-value store (``.toolwire/state.db`` by default),
in its own tables: ``toolwire_archive`` holds the messages and ``toolwire_archive_fts`` is an
FTS5 index over their text (an external-content table kept in step by triggers), tokenised by
``porter unicode61`` so ``deploying`` finds ``deploy``. Hits are ranked by BM25, newest first
on ties; the snippet is FTS5's ``snippet()``. Writes go through one connection thread, like
the key-value store's, and every write is a transaction.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime

from toolwire.capabilities.kinds.archive._base import (
    DEFAULT_MAX_TEXT_CHARS,
    ArchivedMessage,
    SessionArchive,
    check_max_text_chars,
    clip_snippet,
)
from toolwire.capabilities.kinds.archive._query import SearchQuery
from toolwire.capabilities.kinds.archive.seam import ArchiveHit, ArchiveScope
from toolwire.stores._sqlite_thread import ConnectionThread, open_wal

__all__ = ["SqliteSessionArchive"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS toolwire_archive (id INTEGER PRIMARY KEY, "
    "session TEXT NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL, at REAL NOT NULL, "
    "personality TEXT, user TEXT)",
    "CREATE INDEX IF NOT EXISTS toolwire_archive_session ON toolwire_archive (session, at)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS toolwire_archive_fts USING fts5(text, "
    "content='toolwire_archive', content_rowid='id', "
    "tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER IF NOT EXISTS toolwire_archive_added AFTER INSERT ON toolwire_archive "
    "BEGIN INSERT INTO toolwire_archive_fts (rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER IF NOT EXISTS toolwire_archive_removed AFTER DELETE ON toolwire_archive "
    "BEGIN INSERT INTO toolwire_archive_fts (toolwire_archive_fts, rowid, text) "
    "VALUES ('delete', old.id, old.text); END",
)
_INSERT = (
    "INSERT INTO toolwire_archive (session, role, text, at, personality, user) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
_SCOPE_COLUMN = {"personality": "personality", "user": "user", "session": "session"}
_SEARCH = (
    "SELECT a.session, a.role, a.at, "
    "snippet(toolwire_archive_fts, 0, '**', '**', '…', 24), -bm25(toolwire_archive_fts) "
    "FROM toolwire_archive_fts JOIN toolwire_archive AS a ON a.id = toolwire_archive_fts.rowid "
    "WHERE toolwire_archive_fts MATCH ? AND a.{column} = ? "
    "ORDER BY bm25(toolwire_archive_fts), a.at DESC, a.id DESC LIMIT ?"
)
_USER_OF = (
    "SELECT user FROM toolwire_archive WHERE session = ? AND user IS NOT NULL "
    "ORDER BY at DESC, id DESC LIMIT 1"
)
_FORGET = "DELETE FROM toolwire_archive WHERE session = ?"


def _scope_filter(scope: ArchiveScope) -> tuple[str, str]:
    for name, column in _SCOPE_COLUMN.items():
        value = getattr(scope, name)
        if value is not None:
            return column, value
    raise AssertionError("ArchiveScope has exactly one field set")


def _create(connection: sqlite3.Connection) -> None:
    connection.execute("BEGIN IMMEDIATE")
    for statement in _SCHEMA:
        connection.execute(statement)
    connection.execute("COMMIT")


class SqliteSessionArchive(SessionArchive):
    """The archive in one SQLite file (WAL), beside the key-value store's table.

    Args:
        path: The database file, created with its directories on first use
            (``":memory:"`` for a private in-memory archive).
        busy_timeout_s: How long a write waits for another connection's lock.
        max_text_chars: How much of one message is stored and indexed.

    Raises:
        StoreError: ``max_text_chars`` is not a positive int.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_s: float = 5.0,
        max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    ) -> None:
        self._path = os.fspath(path)
        self._busy_timeout_s = busy_timeout_s
        self._max_text_chars = check_max_text_chars(max_text_chars)
        self._thread = ConnectionThread(self._connect, name=f"toolwire-archive:{self._path}")

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    def _connect(self) -> sqlite3.Connection:
        return open_wal(self._path, self._busy_timeout_s, _create)

    async def _insert(self, message: ArchivedMessage) -> None:
        row = (
            message.session,
            message.role,
            message.text,
            message.at.timestamp(),
            message.personality,
            message.user,
        )

        def insert(connection: sqlite3.Connection) -> None:
            connection.execute(_INSERT, row)

        await self._thread.run(insert, writes=True)

    async def _search(
        self, parsed: SearchQuery, scope: ArchiveScope, limit: int
    ) -> list[ArchiveHit]:
        column, value = _scope_filter(scope)
        statement = _SEARCH.format(column=column)
        params = (parsed.to_fts5(), value, limit)

        def search(connection: sqlite3.Connection) -> list[ArchiveHit]:
            return [
                ArchiveHit(
                    session=str(session),
                    role=str(role),
                    at=datetime.fromtimestamp(float(at), UTC),
                    snippet=clip_snippet(str(snippet)),
                    score=float(score),
                )
                for session, role, at, snippet, score in connection.execute(statement, params)
            ]

        return await self._thread.run(search, writes=False)

    async def user_of(self, session: str) -> str | None:
        def user(connection: sqlite3.Connection) -> str | None:
            row = connection.execute(_USER_OF, (session,)).fetchone()
            return None if row is None else str(row[0])

        return await self._thread.run(user, writes=False)

    async def forget(self, session: str) -> int:
        def forget(connection: sqlite3.Connection) -> int:
            return connection.execute(_FORGET, (session,)).rowcount

        return await self._thread.run(forget, writes=True)

    async def aclose(self) -> None:
        await self._thread.aclose()

    def __repr__(self) -> str:
        return f"SqliteSessionArchive({self._path!r})"
