"""Physical stores for the key-value tests: one fresh, isolated store per test, on real services.

Redis keys go under a unique prefix (deleted afterwards); PostgreSQL uses a unique table
(dropped afterwards); SQLite uses a file in ``tmp_path``.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from conftest import require_service
from toolwire.backends.kv import (
    KeyValueBackend,
    MemoryKeyValueBackend,
    PostgresKeyValueBackend,
    RedisKeyValueBackend,
    SqliteKeyValueBackend,
)

KINDS = ("memory", "sqlite", "redis", "postgres")
DURABLE_KINDS = ("sqlite", "redis", "postgres")
REDIS_URL = "redis://127.0.0.1:6379/0"
POSTGRES_DSN = "postgresql://postgres@127.0.0.1:5432/test"


@dataclass(frozen=True, kw_only=True, slots=True)
class KvTarget:
    """One physical store; `make` opens a new backend on it (a "restart")."""

    kind: str
    make: Callable[[], KeyValueBackend]


@asynccontextmanager
async def open_target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    """A fresh physical store of ``kind``, removed afterwards."""
    unique = uuid.uuid4().hex[:12]
    if kind == "memory":
        shared = MemoryKeyValueBackend()
        yield KvTarget(kind=kind, make=lambda: shared)
    elif kind == "sqlite":
        path = tmp_path / "kv" / "store.db"
        yield KvTarget(kind=kind, make=lambda: SqliteKeyValueBackend(path))
    elif kind == "redis":
        require_service("Redis", "127.0.0.1", 6379)
        prefix = f"toolwire-test:{unique}"
        yield KvTarget(kind=kind, make=lambda: RedisKeyValueBackend(REDIS_URL, key_prefix=prefix))
        cleaner = RedisKeyValueBackend(REDIS_URL, key_prefix=prefix)
        await cleaner.delete_all()
        await cleaner.aclose()
    elif kind == "postgres":
        require_service("PostgreSQL", "127.0.0.1", 5432)
        table = f"kv_test_{unique}"
        yield KvTarget(kind=kind, make=lambda: PostgresKeyValueBackend(POSTGRES_DSN, table=table))
        connection = await asyncpg.connect(POSTGRES_DSN)
        await connection.execute(f'DROP TABLE IF EXISTS "{table}"')
        await connection.close()
    else:
        raise ValueError(kind)
