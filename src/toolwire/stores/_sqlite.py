"""`SqliteKeyValueBackend`: one SQLite file (WAL) holding every namespace; the embedded default.

Rows are keyed ``(tool, scope_id, key)`` in separate columns, so a key containing any separator
stays in its namespace; ``tool`` is ``''`` in a partition shared by every tool (`Namespace`).
``expires_at`` holds a Unix time; expired rows are invisible to reads and are removed by
`purge_expired` or overwritten by the next write. Every write commits a
transaction and the journal is a write-ahead log, so killing the process (even ``kill -9``)
never leaves a torn value: each key holds its old value or its new one, complete.
"""

from __future__ import annotations

import os
import sqlite3
import time

from toolwire.stores._base import (
    KeyValueBackend,
    Namespace,
    check_counter_range,
    parse_counter,
)
from toolwire.stores._sqlite_thread import ConnectionThread, open_wal

__all__ = ["SqliteKeyValueBackend"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS toolwire_kv (
    tool TEXT NOT NULL,
    scope_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    expires_at REAL,
    PRIMARY KEY (tool, scope_id, key)
)
"""
_LIVE = "(expires_at IS NULL OR expires_at > ?)"
_GET = f"SELECT value FROM toolwire_kv WHERE tool = ? AND scope_id = ? AND key = ? AND {_LIVE}"
_INLINE_CHARS = 65_536
"""Values up to this many characters are read on the event loop; longer ones on the thread."""
_GET_HEAD = (
    f"SELECT substr(value, 1, {_INLINE_CHARS + 1}) FROM toolwire_kv "
    f"WHERE tool = ? AND scope_id = ? AND key = ? AND {_LIVE}"
)
_GET_WITH_EXPIRY = (
    "SELECT value, expires_at FROM toolwire_kv WHERE tool = ? AND scope_id = ? AND key = ?"
)
_UPSERT = (
    "INSERT INTO toolwire_kv (tool, scope_id, key, value, expires_at) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (tool, scope_id, key) "
    "DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at"
)
_DELETE = "DELETE FROM toolwire_kv WHERE tool = ? AND scope_id = ? AND key = ?"
# substr() rather than LIKE: SQLite's LIKE ignores ASCII case, so 'A' would list 'a...' keys.
_LIST = (
    "SELECT key FROM toolwire_kv WHERE tool = ? AND scope_id = ? AND key >= ? "
    f"AND substr(key, 1, ?) = ? AND {_LIVE} ORDER BY key"
)
_PURGE = "DELETE FROM toolwire_kv WHERE expires_at IS NOT NULL AND expires_at <= ?"


def _expiry(ttl_seconds: float | None) -> float | None:
    return None if ttl_seconds is None else time.time() + ttl_seconds


class SqliteKeyValueBackend(KeyValueBackend):
    """Every namespace in one SQLite file, written through a dedicated connection thread.

    The file and its parent directories are created on first use. Several backends (or
    processes) may open the same file; writers wait up to ``busy_timeout_s`` for each other.

    Writes, listings and purges run on the connection thread (batched into shared
    transactions). A point read of a value up to 64 Ki characters runs on the event loop
    itself, on a second, read-only connection: a WAL reader never waits for a writer, so it
    costs microseconds, far less than a hop to a thread. Longer values, and a reader that finds
    the database busy, go through the thread.

    Args:
        path: The database file (``":memory:"`` for a private in-memory database).
        busy_timeout_s: How long a write waits for another connection's lock.
        isolate_tools: Split ``session`` and ``personality`` scopes per tool too (by default
            the tools of a session or personality share them, as spec 04 says).

    Raises:
        ConfigurationError: ``isolate_tools`` is not a bool.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_s: float = 5.0,
        isolate_tools: bool = False,
    ) -> None:
        super().__init__(isolate_tools=isolate_tools)
        self._path = os.fspath(path)
        self._busy_timeout_s = busy_timeout_s
        self._thread = ConnectionThread(self._connect, name=f"toolwire-kv-sqlite:{self._path}")
        self._reader: sqlite3.Connection | None = None
        self._inline_reads = self._path != ":memory:"  # a second connection sees another db

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    def _repr_arguments(self) -> list[str]:
        return [repr(self._path)]

    def _connect(self) -> sqlite3.Connection:
        return open_wal(self._path, self._busy_timeout_s, lambda c: c.execute(_SCHEMA))

    async def _read_connection(self) -> sqlite3.Connection:
        if self._reader is None:
            await self._thread.run(lambda connection: None, writes=False)  # file and schema
            reader = sqlite3.connect(
                self._path, timeout=0, isolation_level=None, check_same_thread=False
            )
            reader.execute("PRAGMA query_only = 1")
            if self._reader is None:
                self._reader = reader
            else:  # another task opened one meanwhile
                reader.close()
        return self._reader

    async def get_value(self, namespace: Namespace, key: str) -> str | None:
        if self._inline_reads and not self._thread.closed:
            reader = await self._read_connection()
            try:
                row = reader.execute(
                    _GET_HEAD, (namespace.tool, namespace.scope_id, key, time.time())
                ).fetchone()
            except sqlite3.Error:  # busy (recovery, checkpoint) or worse: the thread says which
                row = ()
            if row is None:
                return None
            if row and len(row[0]) <= _INLINE_CHARS:
                return str(row[0])

        def get(connection: sqlite3.Connection) -> str | None:
            row = connection.execute(
                _GET, (namespace.tool, namespace.scope_id, key, time.time())
            ).fetchone()
            return None if row is None else str(row[0])

        return await self._thread.run(get, writes=False)

    async def set_value(
        self, namespace: Namespace, key: str, value: str, ttl_seconds: float | None
    ) -> None:
        params = (namespace.tool, namespace.scope_id, key, value, _expiry(ttl_seconds))

        def upsert(connection: sqlite3.Connection) -> None:
            connection.execute(_UPSERT, params)

        await self._thread.run(upsert, writes=True)

    async def delete_value(self, namespace: Namespace, key: str) -> None:
        def delete(connection: sqlite3.Connection) -> None:
            connection.execute(_DELETE, (namespace.tool, namespace.scope_id, key))

        await self._thread.run(delete, writes=True)

    async def list_keys(self, namespace: Namespace, prefix: str) -> list[str]:
        def keys(connection: sqlite3.Connection) -> list[str]:
            params = (namespace.tool, namespace.scope_id, prefix, len(prefix), prefix, time.time())
            return [str(row[0]) for row in connection.execute(_LIST, params)]

        return await self._thread.run(keys, writes=False)

    async def increment_value(
        self, namespace: Namespace, key: str, by: int, ttl_seconds: float | None
    ) -> int:
        def increment(connection: sqlite3.Connection) -> int:
            # Runs inside BEGIN IMMEDIATE (the thread wraps writes), so read-modify-write is
            # atomic across threads and processes.
            ids = (namespace.tool, namespace.scope_id, key)
            row = connection.execute(_GET_WITH_EXPIRY, ids).fetchone()
            if row is None or (row[1] is not None and row[1] <= time.time()):
                result, expires_at = check_counter_range(by, key), _expiry(ttl_seconds)
            else:
                result = check_counter_range(parse_counter(str(row[0]), key) + by, key)
                expires_at = row[1]
            connection.execute(_UPSERT, (*ids, str(result), expires_at))
            return result

        return await self._thread.run(increment, writes=True)

    async def compare_and_set_value(
        self,
        namespace: Namespace,
        key: str,
        expected: str | None,
        value: str,
        ttl_seconds: float | None,
    ) -> bool:
        ids = (namespace.tool, namespace.scope_id, key)
        expires_at = _expiry(ttl_seconds)

        def compare_and_set(connection: sqlite3.Connection) -> bool:
            # Inside BEGIN IMMEDIATE, like increment: nobody writes between the read and the set.
            row = connection.execute(_GET_WITH_EXPIRY, ids).fetchone()
            live = row is not None and (row[1] is None or row[1] > time.time())
            if (str(row[0]) if live else None) != expected:
                return False
            connection.execute(_UPSERT, (*ids, value, expires_at))
            return True

        return await self._thread.run(compare_and_set, writes=True)

    async def purge_expired(self) -> int:
        def purge(connection: sqlite3.Connection) -> int:
            return connection.execute(_PURGE, (time.time(),)).rowcount

        return await self._thread.run(purge, writes=True)

    async def aclose(self) -> None:
        await self._thread.aclose()
        if self._reader is not None:
            self._reader.close()
            self._reader = None
