"""`compare_and_set`: the contract every key-value backend passes (memory, SQLite, Redis,
PostgreSQL).

Memory and SQLite also run on trio.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from kv_targets import DURABLE_KINDS, KINDS, KvTarget, open_target, parametrize_targets

from toolwire.capabilities.seams import AtomicKeyValueStore
from toolwire.errors import StoreError
from toolwire.stores import KeyValueBackend

pytestmark = pytest.mark.anyio


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_targets(metafunc, {"durable_target": DURABLE_KINDS, "target": KINDS})


@pytest.fixture
async def target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    async with open_target(kind, tmp_path) as opened:
        yield opened


@pytest.fixture
async def durable_target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    async with open_target(kind, tmp_path) as opened:
        yield opened


@pytest.fixture
async def backend(target: KvTarget) -> AsyncIterator[KeyValueBackend]:
    async with target.make() as opened:
        yield opened


def _store(backend: KeyValueBackend) -> AtomicKeyValueStore:
    store = backend.scoped("notes", "session:s1")
    assert isinstance(store, AtomicKeyValueStore)
    return store


async def test_expecting_none_creates_an_absent_key_once(backend: KeyValueBackend) -> None:
    store = _store(backend)
    assert await store.compare_and_set("k", None, "first")
    assert not await store.compare_and_set("k", None, "second")
    assert await store.get("k") == "first"


async def test_the_expected_value_swaps_and_a_stale_one_does_not(backend: KeyValueBackend) -> None:
    store = _store(backend)
    await store.set("k", "v1")
    assert await store.compare_and_set("k", "v1", "v2")
    assert not await store.compare_and_set("k", "v1", "v3")
    assert not await store.compare_and_set("k", None, "v4")
    assert await store.get("k") == "v2"


async def test_an_absent_key_does_not_match_a_value(backend: KeyValueBackend) -> None:
    store = _store(backend)
    assert not await store.compare_and_set("k", "", "v")
    assert await store.get("k") is None


async def test_the_empty_string_is_a_value_not_absence(backend: KeyValueBackend) -> None:
    store = _store(backend)
    await store.set("k", "")
    assert not await store.compare_and_set("k", None, "v")
    assert await store.compare_and_set("k", "", "v")
    assert await store.get("k") == "v"


async def test_an_expired_key_counts_as_absent(backend: KeyValueBackend) -> None:
    store = _store(backend)
    await store.set("k", "old", ttl_seconds=0.05)
    await anyio.sleep(0.15)
    assert not await store.compare_and_set("k", "old", "new")
    assert await store.compare_and_set("k", None, "new")
    assert await store.get("k") == "new"


async def test_a_swap_can_set_an_expiry(backend: KeyValueBackend) -> None:
    store = _store(backend)
    assert await store.compare_and_set("k", None, "short", ttl_seconds=0.05)
    await anyio.sleep(0.15)
    assert await store.get("k") is None


async def test_namespaces_stay_apart(backend: KeyValueBackend) -> None:
    mine, other = backend.scoped("t", "session:a"), backend.scoped("t", "session:b")
    await other.set("k", "x")
    assert isinstance(mine, AtomicKeyValueStore)
    assert await mine.compare_and_set("k", None, "y")
    assert await other.get("k") == "x"


async def test_bad_arguments_raise_store_error(backend: KeyValueBackend) -> None:
    store = _store(backend)
    with pytest.raises(StoreError, match="NUL"):
        await store.compare_and_set("k", None, "a\x00b")
    with pytest.raises(StoreError, match="expected must be a str"):
        await store.compare_and_set("k", 3, "v")  # type: ignore[arg-type]


async def _add_one(store: AtomicKeyValueStore) -> int:
    """Read-modify-write a counter with compare-and-set; how many attempts it took."""
    attempts = 0
    while True:
        attempts += 1
        current = await store.get("count")
        new = str(int(current or "0") + 1)
        if await store.compare_and_set("count", current, new):
            return attempts


async def test_racing_read_modify_writes_lose_nothing(backend: KeyValueBackend) -> None:
    store = _store(backend)
    async with anyio.create_task_group() as group:
        for _ in range(40):
            group.start_soon(_add_one, store)
    assert await store.get("count") == "40"


async def test_two_backends_on_one_store_lose_nothing(durable_target: KvTarget) -> None:
    async with durable_target.make() as first, durable_target.make() as second:
        stores = [_store(first), _store(second)]
        async with anyio.create_task_group() as group:
            for index in range(40):
                group.start_soon(_add_one, stores[index % 2])
        assert await stores[0].get("count") == "40"
