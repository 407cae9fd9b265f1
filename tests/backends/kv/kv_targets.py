"""Physical stores for the key-value tests: one fresh, isolated store per test, on real services.

Redis keys go under a unique prefix (deleted afterwards); PostgreSQL uses a unique table
(dropped afterwards); SQLite uses a file in ``tmp_path``. `partition_owner` is the test's own
statement of spec 04's scope table, the oracle the isolation tests check the stores against.
`parametrize_targets` runs a test on every kind, and the memory and SQLite stores on trio too.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import asyncpg
import pytest

from service_checks import require_service
from toolwire.capabilities.seams import KeyValueStore
from toolwire.stores import (
    KeyValueBackend,
    MemoryKeyValueBackend,
    PostgresKeyValueBackend,
    RedisKeyValueBackend,
    SqliteKeyValueBackend,
)

KINDS = ("memory", "sqlite", "redis", "postgres")
DURABLE_KINDS = ("sqlite", "redis", "postgres")
TRIO_KINDS = ("memory", "sqlite")
"""The stores that also run on trio; redis-py and asyncpg are asyncio libraries."""
STORE_OPERATIONS: dict[str, Callable[[KeyValueStore], Awaitable[object]]] = {
    "get": lambda store: store.get("k"),
    "set": lambda store: store.set("k", "v"),
    "delete": lambda store: store.delete("k"),
    "list": lambda store: store.list("k"),
    "increment": lambda store: store.increment("n"),
}
"""One call of each `KeyValueStore` operation, by name."""
REDIS_URL = "redis://127.0.0.1:6379/0"
POSTGRES_DSN = "postgresql://postgres@127.0.0.1:5432/test"


def partition_owner(tool: str, scope_id: str, *, isolate_tools: bool) -> str | None:
    """Whose partition ``tool`` reaches for ``scope_id``: the tool's, or ``None`` when shared.

    Spec 04: ``tool:<name>`` is private to the tool; ``session:<id>`` and ``personality:<id>``
    (and any other scope id) are shared by every tool, unless the backend isolates tools.
    """
    return tool if isolate_tools or scope_id.startswith("tool:") else None


async def check_partitions(
    backend: KeyValueBackend, triples: Sequence[tuple[str, str, str]]
) -> None:
    """Write every ``(tool, scope_id, key)`` triple, then check each store sees its partition only.

    Triple ``i`` writes ``str(i)``. Each triple's store must read the last value written to its
    partition (per `partition_owner`), list exactly that partition's keys, and never read a
    value written under another scope id.
    """
    mode = backend.isolate_tools
    model: dict[tuple[str | None, str], dict[str, int]] = {}
    for index, (tool, scope_id, key) in enumerate(triples):
        await backend.scoped(tool, scope_id).set(key, str(index))
        owner = partition_owner(tool, scope_id, isolate_tools=mode)
        model.setdefault((owner, scope_id), {})[key] = index
    for tool, scope_id, key in triples:
        store = backend.scoped(tool, scope_id)
        partition = model[(partition_owner(tool, scope_id, isolate_tools=mode), scope_id)]
        value = await store.get(key)
        assert value == str(partition[key]), (tool, scope_id, key)
        assert triples[int(value)][1] == scope_id, "read a value written under another scope id"
        assert await store.list() == sorted(partition), (tool, scope_id)


def on_loops(kinds: Sequence[str]) -> list[object]:
    """``(kind, anyio_backend)`` parameters: every kind on asyncio, the `TRIO_KINDS` on trio too."""
    on_asyncio = [pytest.param(kind, "asyncio", id=kind) for kind in kinds]
    on_trio = [
        pytest.param(kind, "trio", id=f"{kind}-trio") for kind in kinds if kind in TRIO_KINDS
    ]
    return on_asyncio + on_trio


def parametrize_targets(
    metafunc: pytest.Metafunc, kinds_by_fixture: Mapping[str, Sequence[str]]
) -> None:
    """Give a test using one of the fixtures named in ``kinds_by_fixture`` a ``kind`` and a loop.

    Call it from a test module's ``pytest_generate_tests``; the fixture reads ``kind``.
    """
    for fixture, kinds in kinds_by_fixture.items():
        if fixture in metafunc.fixturenames:
            metafunc.parametrize(("kind", "anyio_backend"), on_loops(kinds))
            return


class MakeBackend(Protocol):
    def __call__(self, *, isolate_tools: bool = False) -> KeyValueBackend: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class KvTarget:
    """One physical store; `make` opens a new backend on it (a "restart")."""

    kind: str
    make: MakeBackend


@asynccontextmanager
async def open_target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    """A fresh physical store of ``kind``, removed afterwards."""
    unique = uuid.uuid4().hex[:12]
    if kind == "memory":
        # A memory store is its backend: one per option, kept across "restarts".
        by_option = {
            False: MemoryKeyValueBackend(),
            True: MemoryKeyValueBackend(isolate_tools=True),
        }

        def memory(*, isolate_tools: bool = False) -> KeyValueBackend:
            return by_option[isolate_tools]

        yield KvTarget(kind=kind, make=memory)
    elif kind == "sqlite":
        path = tmp_path / "kv" / "store.db"

        def sqlite(*, isolate_tools: bool = False) -> KeyValueBackend:
            return SqliteKeyValueBackend(path, isolate_tools=isolate_tools)

        yield KvTarget(kind=kind, make=sqlite)
    elif kind == "redis":
        require_service("Redis", "127.0.0.1", 6379)
        prefix = f"toolwire-test:{unique}"

        def redis(*, isolate_tools: bool = False) -> KeyValueBackend:
            return RedisKeyValueBackend(REDIS_URL, key_prefix=prefix, isolate_tools=isolate_tools)

        try:
            yield KvTarget(kind=kind, make=redis)
        finally:  # a failing test (or hypothesis example) must not leave its keys behind
            async with RedisKeyValueBackend(REDIS_URL, key_prefix=prefix) as cleaner:
                await cleaner.delete_all()
    elif kind == "postgres":
        require_service("PostgreSQL", "127.0.0.1", 5432)
        table = f"kv_test_{unique}"

        def postgres(*, isolate_tools: bool = False) -> KeyValueBackend:
            return PostgresKeyValueBackend(POSTGRES_DSN, table=table, isolate_tools=isolate_tools)

        try:
            yield KvTarget(kind=kind, make=postgres)
        finally:
            await drop_postgres_table(table)
    else:
        raise ValueError(kind)


async def drop_postgres_table(table: str) -> None:
    """Drop a test's PostgreSQL table (when it was created) through a direct connection."""
    connection = await asyncpg.connect(POSTGRES_DSN)
    try:
        await connection.execute(f'DROP TABLE IF EXISTS "{table}"')
    finally:
        await connection.close()
