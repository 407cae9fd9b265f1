"""`PostgresSessionArchive`: the session archive in PostgreSQL, searched with full-text search.

One table holds the messages and their ``terms``: the words the query parser reads
(`toolwire.capabilities.kinds.archive._query.index_terms`: letters and digits, lower-cased, without
diacritics, one space apart), so ``config.yaml``, ``1.2.3`` or ``api.example.com`` are words here as
in a query and in SQLite, never one token of PostgreSQL's parser. A stored generated ``tsvector`` of
the terms (``english`` config, so ``deploying`` finds ``deploy``) carries a GIN index. A table made
before the terms existed gets them on first use (its old rows' terms split by PostgreSQL's regular
expressions). The model's text is parsed (`toolwire.capabilities.kinds.archive._query`) and handed
to ``websearch_to_tsquery``, hits are ranked by ``ts_rank`` (newest first on ties) and the snippet
is ``ts_headline``, computed only for the hits kept. Every wait is bounded by the connect and
command timeouts, as in the key-value store.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC
from typing import Any

import anyio

from toolwire.capabilities.kinds.archive._base import (
    DEFAULT_MAX_TEXT_CHARS,
    ArchivedMessage,
    SessionArchive,
    check_max_text_chars,
    clip_snippet,
)
from toolwire.capabilities.kinds.archive._query import SearchQuery, index_terms
from toolwire.capabilities.kinds.archive.seam import ArchiveHit, ArchiveScope
from toolwire.errors import ConfigurationError, StoreError
from toolwire.stores._loops import require_asyncio

__all__ = ["PostgresSessionArchive"]

_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,50}")
_TSV = "(to_tsvector('english', terms))"
_HEADLINE = "StartSel=**, StopSel=**, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=…"


def _statements(table: str) -> dict[str, str]:
    t = f'"{table}"'
    scope = (
        "($2::text IS NULL OR personality = $2) AND ($3::text IS NULL OR user_id = $3) "
        "AND ($4::text IS NULL OR session = $4)"
    )
    return {
        "schema": (
            f"CREATE TABLE IF NOT EXISTS {t} (id bigserial PRIMARY KEY, session text NOT NULL, "
            "role text NOT NULL, body text NOT NULL, at timestamptz NOT NULL, "
            "personality text, user_id text, terms text NOT NULL DEFAULT '', "
            f"tsv tsvector GENERATED ALWAYS AS {_TSV} STORED);"
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE "
            f"table_schema = current_schema() AND table_name = '{table}' "
            "AND column_name = 'terms') THEN "
            f"ALTER TABLE {t} ADD COLUMN terms text NOT NULL DEFAULT ''; "
            f"UPDATE {t} SET terms = lower(regexp_replace(body, '[^[:alnum:]]+', ' ', 'g')); "
            f"ALTER TABLE {t} DROP COLUMN tsv; "
            f"ALTER TABLE {t} ADD COLUMN tsv tsvector GENERATED ALWAYS AS {_TSV} STORED; "
            "END IF; END $$;"
            f'CREATE INDEX IF NOT EXISTS "{table}_tsv" ON {t} USING GIN (tsv);'
            f'CREATE INDEX IF NOT EXISTS "{table}_session" ON {t} (session, at);'
            f'CREATE INDEX IF NOT EXISTS "{table}_personality" ON {t} (personality);'
            f'CREATE INDEX IF NOT EXISTS "{table}_user" ON {t} (user_id);'
        ),
        "insert": (
            f"INSERT INTO {t} (session, role, body, at, personality, user_id, terms) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7)"
        ),
        "search": (
            "WITH q AS (SELECT websearch_to_tsquery('english', $1) AS query), "
            f"best AS (SELECT a.id, ts_rank(a.tsv, q.query) AS score FROM {t} AS a, q "
            f"WHERE a.tsv @@ q.query AND {scope} "
            "ORDER BY score DESC, a.at DESC, a.id DESC LIMIT $5) "
            "SELECT a.session, a.role, a.at, "
            "ts_headline('english', a.body, q.query, $6), best.score "
            f"FROM best JOIN {t} AS a ON a.id = best.id, q "
            "ORDER BY best.score DESC, a.at DESC, a.id DESC"
        ),
        "user_of": (
            f"SELECT user_id FROM {t} WHERE session = $1 AND user_id IS NOT NULL "
            "ORDER BY at DESC, id DESC LIMIT 1"
        ),
        "forget": f"DELETE FROM {t} WHERE session = $1",
    }


class PostgresSessionArchive(SessionArchive):
    """The archive in one PostgreSQL table, through an asyncpg pool opened on first use.

    Args:
        dsn: A ``postgresql://user@host:port/database`` connection string.
        table: The table's name (letters, digits, underscores).
        max_connections: The pool's size.
        connect_timeout_s: How long connecting may take.
        command_timeout_s: How long one operation may take, waiting for a connection included.
        max_text_chars: How much of one message is stored and indexed.

    Raises:
        ConfigurationError: asyncpg is missing or ``table`` is not a plain name.
        StoreError: ``max_text_chars`` is not a positive int.
    """

    def __init__(
        self,
        dsn: str,
        *,
        table: str = "toolwire_archive",
        max_connections: int = 5,
        connect_timeout_s: float = 5.0,
        command_timeout_s: float = 30.0,
        max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    ) -> None:
        try:
            import asyncpg
        except ImportError:
            raise ConfigurationError(
                "PostgresSessionArchive needs asyncpg: pip install 'toolwire[postgres]'"
            ) from None
        if not _TABLE_NAME.fullmatch(table):
            raise ConfigurationError(
                f"table={table!r} must be a plain SQL name: letters, digits and underscores"
            )
        self._asyncpg: Any = asyncpg
        self._dsn = dsn
        self._table = table
        self._sql = _statements(table)
        self._max_connections = max_connections
        self._connect_timeout_s = connect_timeout_s
        self._command_timeout_s = command_timeout_s
        self._max_text_chars = check_max_text_chars(max_text_chars)
        self._pool: Any = None
        self._pool_lock = anyio.Lock()
        self._closed = False

    @property
    def table(self) -> str:
        """The table holding the messages."""
        return self._table

    async def _connected(self) -> Any:
        if self._pool is not None:
            return self._pool
        async with self._pool_lock:
            if self._closed:
                raise StoreError("the PostgreSQL session archive is closed; create a new one")
            if self._pool is None:
                with anyio.fail_after(self._connect_timeout_s):
                    pool = await self._asyncpg.create_pool(
                        self._dsn,
                        min_size=1,
                        max_size=self._max_connections,
                        timeout=self._connect_timeout_s,
                        command_timeout=self._command_timeout_s,
                    )
                try:
                    with anyio.fail_after(self._command_timeout_s):
                        async with pool.acquire() as connection, connection.transaction():
                            # Two clients creating the table at once would collide on its type.
                            await connection.execute(
                                "SELECT pg_advisory_xact_lock(hashtext($1))", self._table
                            )
                            await connection.execute(self._sql["schema"])
                except BaseException:
                    pool.terminate()
                    raise
                self._pool = pool
        return self._pool

    @asynccontextmanager
    async def _operation(self, name: str) -> AsyncIterator[Any]:
        """The pool for one operation, bounded by the timeouts; failures as `StoreError`."""
        require_asyncio("PostgresSessionArchive", "asyncpg")
        asyncpg = self._asyncpg
        try:
            pool = await self._connected()
            with anyio.fail_after(self._command_timeout_s):
                yield pool
        except TimeoutError as error:
            raise StoreError(
                f"PostgreSQL did not answer the archive's {name} in time; check the server "
                "and the network, or raise command_timeout_s"
            ) from error
        except OSError as error:
            raise StoreError(
                f"cannot reach PostgreSQL ({error}); check the DSN and that the server is running"
            ) from error
        except (asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StoreError(f"PostgreSQL failed ({name}): {error}") from error

    async def _insert(self, message: ArchivedMessage) -> None:
        async with self._operation("record") as pool:
            await pool.execute(self._sql["insert"], *message, index_terms(message.text))

    async def _search(
        self, parsed: SearchQuery, scope: ArchiveScope, limit: int
    ) -> list[ArchiveHit]:
        async with self._operation("search") as pool:
            rows = await pool.fetch(
                self._sql["search"],
                parsed.to_websearch(),
                scope.personality,
                scope.user,
                scope.session,
                limit,
                _HEADLINE,
            )
        return [
            ArchiveHit(
                session=str(row[0]),
                role=str(row[1]),
                at=row[2].astimezone(UTC),
                snippet=clip_snippet(str(row[3])),
                score=float(row[4]),
            )
            for row in rows
        ]

    async def user_of(self, session: str) -> str | None:
        async with self._operation("user_of") as pool:
            value = await pool.fetchval(self._sql["user_of"], session)
        return None if value is None else str(value)

    async def forget(self, session: str) -> int:
        async with self._operation("forget") as pool:
            status: str = await pool.execute(self._sql["forget"], session)
        return int(status.rsplit(" ", 1)[-1])

    async def aclose(self) -> None:
        async with self._pool_lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            try:
                with anyio.fail_after(self._command_timeout_s):
                    await pool.close()
            except TimeoutError:
                pass
            finally:
                pool.terminate()

    def __repr__(self) -> str:
        return f"PostgresSessionArchive(table={self._table!r})"
