"""`PostgresKeyValueBackend`: namespaces shared through one PostgreSQL table.

The table (created when missing) is keyed ``(tool, scope_id, key)`` in separate columns, so no
key can reach another namespace (``tool`` is ``''`` in a partition shared by every tool).
``key`` uses the ``"C"`` collation, so `list` sorts by code point and its ``LIKE`` prefix (with
``%``, ``_`` and ``\\`` escaped) can use the index.
``expires_at`` is compared with the server's clock, which every client shares. `increment` is a
single ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` statement: atomic with no lock held
between round trips.

Every wait is bounded: connecting by ``connect_timeout_s``, and each operation as a whole
(taking a pooled connection, the statement, giving it back) by ``command_timeout_s``.
Operations take the pool's connections in the order they asked (a FIFO gate in front of the
pool: asyncpg's own queue lets a newcomer take a connection a waiter was just woken for, which
under load left some operations waiting seconds), and a connection goes back to the pool
without asyncpg's reset round trip (nothing here leaves session state: no ``LISTEN``, cursor,
session advisory lock or ``SET``; a transaction left open is rolled back). On a
network that goes silent an operation raises `StoreError` naming itself and the timeout,
instead of hanging until the tool's timeout (or, outside the registry, forever).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Any

import anyio

from toolwire.errors import ConfigurationError, StoreError
from toolwire.stores._base import KeyValueBackend, Namespace
from toolwire.stores._loops import require_asyncio
from toolwire.stores._url_settings import UrlSettings

__all__ = [
    "DEFAULT_COMMAND_TIMEOUT_S",
    "DEFAULT_CONNECT_TIMEOUT_S",
    "DEFAULT_MAX_CONNECTIONS",
    "PostgresKeyValueBackend",
    "escape_like",
]

DEFAULT_MAX_CONNECTIONS = 10
"""The pool's size (``max_connections``)."""
DEFAULT_CONNECT_TIMEOUT_S = 5.0
"""How long connecting may take (``connect_timeout_s``)."""
DEFAULT_COMMAND_TIMEOUT_S = 30.0
"""How long one operation may take, waiting for a pooled connection included
(``command_timeout_s``)."""

_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_LIVE = "(expires_at IS NULL OR expires_at > now())"


async def _rollback_if_open(connection: Any) -> None:
    """What a connection needs before going back to the pool: a transaction left open (only
    a cancelled one can be) rolled back. asyncpg's default reset also runs
    ``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``, one more round trip per
    operation for state this backend never creates."""
    if connection.is_in_transaction():
        await connection.execute("ROLLBACK")


def escape_like(text: str) -> str:
    """``text`` with ``\\``, ``%`` and ``_`` escaped for ``LIKE ... ESCAPE '\\'``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _statements(table: str) -> dict[str, str]:
    t = f'"{table}"'
    expired = "kv.expires_at IS NOT NULL AND kv.expires_at <= now()"
    counter = "(CASE WHEN kv.value ~ '^(0|-?[1-9][0-9]*)$' THEN kv.value ELSE 'not an integer' END)"
    return {
        "schema": (
            f"CREATE TABLE IF NOT EXISTS {t} (tool text NOT NULL, scope_id text NOT NULL, "
            'key text COLLATE "C" NOT NULL, value text NOT NULL, expires_at timestamptz, '
            "PRIMARY KEY (tool, scope_id, key))"
        ),
        "get": f"SELECT value FROM {t} WHERE tool = $1 AND scope_id = $2 AND key = $3 AND {_LIVE}",
        "set": (
            f"INSERT INTO {t} (tool, scope_id, key, value, expires_at) "
            "VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) "
            "ON CONFLICT (tool, scope_id, key) "
            "DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at"
        ),
        "delete": f"DELETE FROM {t} WHERE tool = $1 AND scope_id = $2 AND key = $3",
        "list": (
            f"SELECT key FROM {t} WHERE tool = $1 AND scope_id = $2 "
            f"AND key LIKE $3 ESCAPE '\\' AND {_LIVE} ORDER BY key"
        ),
        "increment": (
            f"INSERT INTO {t} AS kv (tool, scope_id, key, value, expires_at) "
            "VALUES ($1, $2, $3, $4::bigint::text, now() + make_interval(secs => $5)) "
            "ON CONFLICT (tool, scope_id, key) DO UPDATE SET "
            f"value = CASE WHEN {expired} THEN EXCLUDED.value "
            f"ELSE ({counter}::bigint + $4::bigint)::text END, "
            f"expires_at = CASE WHEN {expired} THEN EXCLUDED.expires_at ELSE kv.expires_at END "
            "RETURNING value::bigint"
        ),
        "purge": f"DELETE FROM {t} WHERE expires_at IS NOT NULL AND expires_at <= now()",
        # Under READ COMMITTED a concurrent writer's UPDATE waits for ours, then re-checks its
        # WHERE against our new row: only one of two racing swaps from one value succeeds.
        "swap": (
            f"UPDATE {t} SET value = $5, expires_at = now() + make_interval(secs => $6) "
            f"WHERE tool = $1 AND scope_id = $2 AND key = $3 AND value = $4 AND {_LIVE} "
            "RETURNING 1"
        ),
        "create": (
            f"INSERT INTO {t} AS kv (tool, scope_id, key, value, expires_at) "
            "VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) "
            "ON CONFLICT (tool, scope_id, key) DO UPDATE SET value = EXCLUDED.value, "
            f"expires_at = EXCLUDED.expires_at WHERE {expired} RETURNING 1"
        ),
    }


class PostgresKeyValueBackend(KeyValueBackend):
    """Every namespace in one PostgreSQL table, through an asyncpg connection pool.

    The pool is opened, and the table created, on the first operation; an unreachable server
    raises `StoreError` then. A server that stops answering raises `StoreError` once the
    connect or command timeout is spent. asyncpg is an asyncio library: on trio every
    operation raises `StoreError` saying so.

    Args:
        dsn: A ``postgresql://user@host:port/database`` connection string. The query
            parameters ``max_connections``, ``connect_timeout`` and ``command_timeout``
            (seconds) set the options below; asyncpg reads the others.
        table: The table's name (letters, digits, underscores).
        max_connections: The pool's size (default 10). Wins over ``?max_connections=``.
        connect_timeout_s: How long to wait for a new connection (default 5 s). Wins over
            ``?connect_timeout=``.
        command_timeout_s: How long one operation may take, from taking a pooled connection
            to giving it back (default 30 s). Wins over ``?command_timeout=``.
        isolate_tools: Split ``session`` and ``personality`` scopes per tool too (by default
            the tools of a session or personality share them, as spec 04 says).

    Raises:
        ConfigurationError: the ``postgres`` extra is missing, ``table`` is not a plain name,
            a timeout is not a positive number, ``max_connections`` not a whole one, or
            ``isolate_tools`` is not a bool.
    """

    def __init__(
        self,
        dsn: str,
        *,
        table: str = "toolwire_kv",
        max_connections: int | None = None,
        connect_timeout_s: float | None = None,
        command_timeout_s: float | None = None,
        isolate_tools: bool = False,
    ) -> None:
        super().__init__(isolate_tools=isolate_tools)
        try:
            import asyncpg
        except ImportError:
            raise ConfigurationError(
                "PostgresKeyValueBackend needs asyncpg: pip install 'toolwire[postgres]'"
            ) from None
        if not _TABLE_NAME.fullmatch(table):
            raise ConfigurationError(
                f"table={table!r} must be a plain SQL name: letters, digits and underscores"
            )
        settings = UrlSettings(dsn, ("max_connections", "connect_timeout", "command_timeout"))
        self._max_connections = settings.count(
            "max_connections",
            max_connections,
            query="max_connections",
            default=DEFAULT_MAX_CONNECTIONS,
        )
        self._connect_timeout_s = settings.seconds(
            "connect_timeout_s",
            connect_timeout_s,
            query="connect_timeout",
            default=DEFAULT_CONNECT_TIMEOUT_S,
        )
        self._command_timeout_s = settings.seconds(
            "command_timeout_s",
            command_timeout_s,
            query="command_timeout",
            default=DEFAULT_COMMAND_TIMEOUT_S,
        )
        self._asyncpg: Any = asyncpg
        self._dsn = settings.url
        self._table = table
        self._sql = _statements(table)
        self._pool: Any = None
        self._pool_lock = anyio.Lock()
        self._turns = anyio.Semaphore(self._max_connections)  # FIFO: see the module doc
        self._closed = False

    def _repr_arguments(self) -> list[str]:
        return [f"table={self._table!r}"]

    @property
    def table(self) -> str:
        """The table holding every namespace."""
        return self._table

    @property
    def max_connections(self) -> int:
        """The pool's size."""
        return self._max_connections

    @property
    def connect_timeout_s(self) -> float:
        """How long opening a connection may take."""
        return self._connect_timeout_s

    @property
    def command_timeout_s(self) -> float:
        """How long one operation may take, waiting for a pooled connection included."""
        return self._command_timeout_s

    @contextmanager
    def _errors(self, operation: str) -> Iterator[None]:
        asyncpg = self._asyncpg
        try:
            yield
        except TimeoutError as error:
            if operation == "connect":
                raise StoreError(
                    f"could not connect to PostgreSQL within {self._connect_timeout_s:g} s "
                    "(connect_timeout_s); check the DSN's host and port, the network between "
                    "here and the server (a firewall that drops packets looks like this), and "
                    "that the server accepts connections; raise connect_timeout_s "
                    "(?connect_timeout= in the DSN) for a distant server"
                ) from error
            raise StoreError(
                f"PostgreSQL did not answer {operation} within {self._command_timeout_s:g} s "
                "(command_timeout_s); check the network between here and the server, the "
                f"server's load, and locks held on table {self._table!r}; raise "
                "command_timeout_s (?command_timeout= in the DSN) if the server is just slow"
            ) from error
        except OSError as error:
            raise StoreError(
                f"cannot reach PostgreSQL ({error}); check the DSN and that the server is running"
            ) from error
        except (
            asyncpg.InvalidTextRepresentationError,
            asyncpg.NumericValueOutOfRangeError,
        ) as error:
            raise StoreError(
                "increment: the stored value is not an integer, or the result would overflow "
                f"a signed 64-bit integer (PostgreSQL: {error})"
            ) from error
        except (asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StoreError(f"PostgreSQL failed: {error}") from error

    async def _connected(self) -> Any:
        if self._pool is not None:
            return self._pool
        async with self._pool_lock:
            if self._closed:
                raise StoreError("the PostgreSQL key-value backend is closed; create a new one")
            if self._pool is None:
                with self._errors("connect"), anyio.fail_after(self._connect_timeout_s):
                    pool = await self._asyncpg.create_pool(
                        self._dsn,
                        min_size=1,
                        max_size=self._max_connections,
                        timeout=self._connect_timeout_s,
                        command_timeout=self._command_timeout_s,
                        reset=_rollback_if_open,
                    )
                try:
                    with (
                        self._errors("create table"),
                        anyio.fail_after(self._command_timeout_s),
                        suppress(  # another client created the table at the same moment
                            self._asyncpg.UniqueViolationError,
                            self._asyncpg.DuplicateTableError,
                            self._asyncpg.DuplicateObjectError,  # its row type, first
                        ),
                    ):
                        await pool.execute(self._sql["schema"])
                except BaseException:
                    await self._close_pool(pool)
                    raise
                self._pool = pool
        return self._pool

    @asynccontextmanager
    async def _operation(self, name: str) -> AsyncIterator[Any]:
        """The pool, for one operation bounded by the command timeout; errors as `StoreError`."""
        require_asyncio("PostgresKeyValueBackend", "asyncpg")
        pool = await self._connected()
        with self._errors(name), anyio.fail_after(self._command_timeout_s):
            async with self._turns:  # a pooled connection is free once through
                yield pool

    async def _close_pool(self, pool: Any) -> None:
        """Close gracefully within the command timeout; past it (a silent network), drop."""
        try:
            with suppress(Exception), anyio.fail_after(self._command_timeout_s):
                await pool.close()
        finally:
            pool.terminate()  # a no-op once closed; also when the close itself was cancelled

    async def get_value(self, namespace: Namespace, key: str) -> str | None:
        async with self._operation("get") as pool:
            value = await pool.fetchval(self._sql["get"], namespace.tool, namespace.scope_id, key)
        return None if value is None else str(value)

    async def set_value(
        self, namespace: Namespace, key: str, value: str, ttl_seconds: float | None
    ) -> None:
        async with self._operation("set") as pool:
            await pool.execute(
                self._sql["set"], namespace.tool, namespace.scope_id, key, value, ttl_seconds
            )

    async def delete_value(self, namespace: Namespace, key: str) -> None:
        async with self._operation("delete") as pool:
            await pool.execute(self._sql["delete"], namespace.tool, namespace.scope_id, key)

    async def list_keys(self, namespace: Namespace, prefix: str) -> list[str]:
        pattern = escape_like(prefix) + "%"
        async with self._operation("list") as pool:
            rows = await pool.fetch(self._sql["list"], namespace.tool, namespace.scope_id, pattern)
        return [str(row[0]) for row in rows]

    async def increment_value(
        self, namespace: Namespace, key: str, by: int, ttl_seconds: float | None
    ) -> int:
        async with self._operation("increment") as pool:
            result = await pool.fetchval(
                self._sql["increment"], namespace.tool, namespace.scope_id, key, by, ttl_seconds
            )
        return int(result)

    async def compare_and_set_value(
        self,
        namespace: Namespace,
        key: str,
        expected: str | None,
        value: str,
        ttl_seconds: float | None,
    ) -> bool:
        ids = (namespace.tool, namespace.scope_id, key)
        async with self._operation("compare_and_set") as pool:
            if expected is None:
                done = await pool.fetchval(self._sql["create"], *ids, value, ttl_seconds)
            else:
                done = await pool.fetchval(self._sql["swap"], *ids, expected, value, ttl_seconds)
        return done is not None

    async def purge_expired(self) -> int:
        async with self._operation("purge_expired") as pool:
            status: str = await pool.execute(self._sql["purge"])
        return int(status.rsplit(" ", 1)[-1])

    async def aclose(self) -> None:
        async with self._pool_lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            await self._close_pool(pool)
