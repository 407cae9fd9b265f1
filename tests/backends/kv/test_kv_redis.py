"""RedisKeyValueBackend's connection pool: operations wait for a free connection, for a while.

redis-py's asyncio pool raised "Too many connections" once more than its size were in flight;
the backend's pool makes them wait their turn, up to ``pool_timeout_s``.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import anyio
import pytest
from kv_proxies import silenceable_proxy
from kv_targets import REDIS_URL

from service_checks import require_service
from toolwire.errors import ConfigurationError, StoreError
from toolwire.stores import RedisKeyValueBackend, create_kv_backend

pytestmark = pytest.mark.anyio


@pytest.fixture
async def redis_backend() -> AsyncIterator[RedisKeyValueBackend]:
    require_service("Redis", "127.0.0.1", 6379)
    prefix = f"toolwire-test:{uuid.uuid4().hex[:12]}"
    async with RedisKeyValueBackend(REDIS_URL, key_prefix=prefix) as backend:
        try:
            yield backend
        finally:
            await backend.delete_all()


async def test_a_thousand_concurrent_operations_on_one_backend_all_succeed(
    redis_backend: RedisKeyValueBackend,
) -> None:
    store = redis_backend.scoped("busy", "tool:busy")
    async with anyio.create_task_group() as tg:
        for i in range(1000):
            tg.start_soon(store.increment, "hits")
            tg.start_soon(store.set, f"key-{i:04}", str(i))
    assert await store.get("hits") == "1000"
    assert len(await store.list("key-")) == 1000


def test_the_pool_holds_fifty_connections_and_waits_ten_seconds_by_default() -> None:
    backend = RedisKeyValueBackend(REDIS_URL)
    assert (backend.max_connections, backend.pool_timeout_s) == (50, 10.0)


def test_the_pool_size_and_wait_are_keywords() -> None:
    backend = RedisKeyValueBackend(REDIS_URL, max_connections=7, pool_timeout_s=2.5)
    assert (backend.max_connections, backend.pool_timeout_s) == (7, 2.5)


async def test_the_pool_size_and_wait_are_url_query_parameters(
    redis_backend: RedisKeyValueBackend,
) -> None:
    url = f"{REDIS_URL}?max_connections=7&pool_timeout=2.5"
    async with create_kv_backend(url) as backend:
        assert isinstance(backend, RedisKeyValueBackend)
        assert (backend.max_connections, backend.pool_timeout_s) == (7, 2.5)


def test_a_keyword_wins_over_the_url() -> None:
    url = f"{REDIS_URL}?max_connections=7&pool_timeout=2.5"
    backend = RedisKeyValueBackend(url, max_connections=3, pool_timeout_s=1)
    assert (backend.max_connections, backend.pool_timeout_s) == (3, 1.0)


async def test_the_url_keeps_the_drivers_own_parameters() -> None:
    require_service("Redis", "127.0.0.1", 6379)
    url = "redis://127.0.0.1:6379/0?max_connections=2&socket_timeout=5&pool_timeout=1"
    prefix = f"toolwire-test:{uuid.uuid4().hex[:12]}"
    async with RedisKeyValueBackend(url, key_prefix=prefix) as backend:
        store = backend.scoped("t", "tool:t")
        await store.set("k", "v")
        assert await store.get("k") == "v"
        await backend.delete_all()


@pytest.mark.parametrize(
    ("options", "query", "named"),
    [
        ({"max_connections": 0}, "", "max_connections"),
        ({"max_connections": 2.5}, "", "max_connections"),
        ({"max_connections": True}, "", "max_connections"),
        ({"pool_timeout_s": 0}, "", "pool_timeout_s"),
        ({"pool_timeout_s": float("nan")}, "", "pool_timeout_s"),
        ({}, "?max_connections=many", "max_connections"),
        ({}, "?max_connections=-1", "max_connections"),
        ({}, "?pool_timeout=-1", "pool_timeout"),
        ({}, "?pool_timeout=inf", "pool_timeout"),
    ],
)
def test_a_bad_pool_setting_raises_configuration_error_naming_it(
    options: dict[str, object], query: str, named: str
) -> None:
    with pytest.raises(ConfigurationError, match=named):
        RedisKeyValueBackend(REDIS_URL + query, **options)  # type: ignore[arg-type]


async def test_an_operation_waiting_past_the_pool_timeout_raises_store_error() -> None:
    require_service("Redis", "127.0.0.1", 6379)
    async with silenceable_proxy("127.0.0.1", 6379) as proxy:
        proxy.go_silent()  # the one connection's first command is never answered
        url = f"redis://127.0.0.1:{proxy.port}/0"
        async with RedisKeyValueBackend(url, max_connections=1, pool_timeout_s=0.2) as backend:
            store = backend.scoped("t", "tool:t")
            async with anyio.create_task_group() as tg:
                tg.start_soon(store.get, "holds-the-only-connection")
                await anyio.wait_all_tasks_blocked()
                with (
                    anyio.fail_after(10),
                    pytest.raises(
                        StoreError,
                        match=r"no Redis connection became free within 0\.2 s.*max_connections=1",
                    ),
                ):
                    await store.get("k")
                tg.cancel_scope.cancel()
