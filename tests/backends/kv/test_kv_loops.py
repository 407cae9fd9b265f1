"""Which event loops each store runs on: all four on asyncio, memory and SQLite on trio too.

redis-py and asyncpg are asyncio libraries; on trio they failed with a bare ``RuntimeError``
("no running event loop") or a ``TypeError`` from trio. Now every operation says, as a
`StoreError`, that the store needs asyncio, and closing an unused backend works. (The contract
suite runs the memory and SQLite stores on trio.)
"""

from __future__ import annotations

import uuid

import pytest
from kv_targets import POSTGRES_DSN, REDIS_URL, STORE_OPERATIONS

from toolwire.errors import StoreError
from toolwire.stores import KeyValueBackend, PostgresKeyValueBackend, RedisKeyValueBackend

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["trio"])]


def _redis() -> KeyValueBackend:
    return RedisKeyValueBackend(REDIS_URL, key_prefix=f"toolwire-test:{uuid.uuid4().hex[:12]}")


def _postgres() -> KeyValueBackend:
    return PostgresKeyValueBackend(POSTGRES_DSN, table=f"kv_test_{uuid.uuid4().hex[:12]}")


STORES = {"redis": (_redis, "redis-py"), "postgres": (_postgres, "asyncpg")}


@pytest.mark.parametrize("operation", STORE_OPERATIONS)
@pytest.mark.parametrize("kind", STORES)
async def test_an_asyncio_only_store_on_trio_raises_store_error_saying_so(
    kind: str, operation: str, anyio_backend: str
) -> None:
    make, driver = STORES[kind]
    async with make() as backend:  # nothing is written: no keys or tables to clean up
        with pytest.raises(StoreError, match=rf"needs asyncio.*{driver}.*trio"):
            await STORE_OPERATIONS[operation](backend.scoped("t", "tool:t"))


@pytest.mark.parametrize("kind", STORES)
async def test_purge_expired_on_trio_raises_store_error_saying_so(
    kind: str, anyio_backend: str
) -> None:
    make, _ = STORES[kind]
    async with make() as backend:
        with pytest.raises(StoreError, match="needs asyncio"):
            await backend.purge_expired()


async def test_redis_delete_all_on_trio_raises_store_error_saying_so(anyio_backend: str) -> None:
    async with RedisKeyValueBackend(REDIS_URL, key_prefix="toolwire-test:never") as backend:
        with pytest.raises(StoreError, match="needs asyncio"):
            await backend.delete_all()
