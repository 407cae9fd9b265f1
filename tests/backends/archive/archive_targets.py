"""Session archives for the contract suite: SQLite in ``tmp_path``, PostgreSQL in a fresh table
(dropped afterwards)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import pytest

from service_checks import require_service
from toolwire.capabilities.kinds.archive import (
    PostgresSessionArchive,
    SessionArchive,
    SqliteSessionArchive,
)

ARCHIVE_KINDS = ("sqlite", "postgres")
POSTGRES_DSN = "postgresql://postgres@127.0.0.1:5432/test"


@asynccontextmanager
async def open_archive_target(
    kind: str, tmp_path: Path
) -> AsyncIterator[Callable[[], SessionArchive]]:
    """A function opening a new archive on one fresh physical store of ``kind``."""
    if kind == "sqlite":
        path = tmp_path / "state" / "state.db"
        yield lambda: SqliteSessionArchive(path)
        return
    require_service("PostgreSQL", "127.0.0.1", 5432)
    table = f"archive_test_{uuid.uuid4().hex[:12]}"
    try:
        yield lambda: PostgresSessionArchive(POSTGRES_DSN, table=table)
    finally:
        connection = await asyncpg.connect(POSTGRES_DSN)
        try:
            await connection.execute(f'DROP TABLE IF EXISTS "{table}"')
        finally:
            await connection.close()


@pytest.fixture(params=ARCHIVE_KINDS)
async def open_archive(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], SessionArchive]]:
    """Opens archives on one fresh store of each kind (call it twice to "restart")."""
    async with open_archive_target(request.param, tmp_path) as opener:
        yield opener


@pytest.fixture
async def archive(open_archive: Callable[[], SessionArchive]) -> AsyncIterator[SessionArchive]:
    """A fresh archive of each kind."""
    async with open_archive() as opened:
        yield opened
