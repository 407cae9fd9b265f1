"""A PostgreSQL archive table made before the archive indexed its terms gets them on first use:
its old rows are found by their words, and new rows as every store finds them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import asyncpg
import pytest
from archive_targets import POSTGRES_DSN

from service_checks import require_service
from toolwire.capabilities.kinds.archive import PostgresSessionArchive
from toolwire.capabilities.seams import ArchiveScope

pytestmark = pytest.mark.anyio

OLD_SCHEMA = (
    'CREATE TABLE "{t}" (id bigserial PRIMARY KEY, session text NOT NULL, role text NOT NULL, '
    "body text NOT NULL, at timestamptz NOT NULL, personality text, user_id text, "
    "tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED);"
    'CREATE INDEX "{t}_tsv" ON "{t}" USING GIN (tsv);'
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_old_table_is_upgraded_and_its_rows_found_by_their_words() -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    table = f"archive_old_{uuid.uuid4().hex[:12]}"
    connection = await asyncpg.connect(POSTGRES_DSN)
    try:
        await connection.execute(OLD_SCHEMA.format(t=table))
        await connection.execute(
            f'INSERT INTO "{table}" (session, role, body, at, personality) '
            "VALUES ('old', 'user', 'edit config.yaml first', now(), 'ops')"
        )
        archive = PostgresSessionArchive(POSTGRES_DSN, table=table)
        try:
            scope = ArchiveScope(personality="ops")
            assert [h.session for h in await archive.search("config.yaml", scope)] == ["old"]
            await archive.record("new", "user", "the café on 1.2.3", datetime.now(UTC),
                                 personality="ops")  # fmt: skip
            assert [h.session for h in await archive.search("cafe 1.2.3", scope)] == ["new"]
        finally:
            await archive.aclose()
        again = PostgresSessionArchive(POSTGRES_DSN, table=table)  # a second start: no change
        try:
            hits = await again.search("config", ArchiveScope(personality="ops"))
            assert [h.session for h in hits] == ["old"]
        finally:
            await again.aclose()
    finally:
        await connection.execute(f'DROP TABLE IF EXISTS "{table}"')
        await connection.close()
