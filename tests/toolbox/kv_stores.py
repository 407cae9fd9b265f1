"""Fresh key-value stores on the machine's real SQLite, Redis and PostgreSQL, and registries
over them, for the tests of the store-backed tools (memory, todo, kanban)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg

from service_checks import require_service
from toolwire.capabilities.kinds.archive import SessionArchive
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.registry import ToolRegistry
from toolwire.stores import (
    KeyValueBackend,
    PostgresKeyValueBackend,
    RedisKeyValueBackend,
    SqliteKeyValueBackend,
)
from toolwire.tools import Tool

STORE_KINDS = ("sqlite", "redis", "postgres")
REDIS_URL = "redis://127.0.0.1:6379/0"
POSTGRES_DSN = "postgresql://postgres@127.0.0.1:5432/test"


@asynccontextmanager
async def open_store(kind: str, tmp_path: Path) -> AsyncIterator[Callable[[], KeyValueBackend]]:
    """A function opening a new backend on one fresh physical store of ``kind`` (cleaned up
    afterwards): call it twice for two agents sharing the store."""
    unique = uuid.uuid4().hex[:12]
    if kind == "sqlite":
        path = tmp_path / "state" / "state.db"
        yield lambda: SqliteKeyValueBackend(path)
    elif kind == "redis":
        require_service("Redis", "127.0.0.1", 6379)
        prefix = f"toolwire-test:{unique}"
        try:
            yield lambda: RedisKeyValueBackend(REDIS_URL, key_prefix=prefix)
        finally:
            async with RedisKeyValueBackend(REDIS_URL, key_prefix=prefix) as cleaner:
                await cleaner.delete_all()
    elif kind == "postgres":
        require_service("PostgreSQL", "127.0.0.1", 5432)
        table = f"kv_tools_{unique}"
        try:
            yield lambda: PostgresKeyValueBackend(POSTGRES_DSN, table=table)
        finally:
            connection = await asyncpg.connect(POSTGRES_DSN)
            try:
                await connection.execute(f'DROP TABLE IF EXISTS "{table}"')
            finally:
                await connection.close()
    else:
        raise ValueError(kind)


def store_registry(
    backend: KeyValueBackend, tools: Sequence[Tool], archive: SessionArchive | None = None
) -> ToolRegistry:
    """A registry running ``tools`` over ``backend`` (and ``archive``), with no other reach."""
    kinds: dict[str, object] = {} if archive is None else {"archive": archive}
    backends = CapabilityBackends(
        kv_store_factory=backend.scoped, kind_backends=kinds, processes=None
    )
    registry = ToolRegistry(backends=backends)
    registry.register_all(tools)
    return registry
