"""The contract every key-value backend passes: memory, SQLite, Redis and PostgreSQL alike.

Every store runs on asyncio; the memory and SQLite stores run on trio as well.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from kv_targets import (
    DURABLE_KINDS,
    KINDS,
    KvTarget,
    check_partitions,
    open_target,
    parametrize_targets,
)

from toolwire.capabilities.seams import KeyValueStore
from toolwire.errors import StoreError
from toolwire.stores import KeyValueBackend

pytestmark = pytest.mark.anyio

SHORT_TTL = 0.05
PAST_SHORT_TTL = 0.1
# Long enough for one increment to land while the key is still live, even on a loaded machine.
LIVE_TTL = 0.4
PAST_LIVE_TTL = 0.45


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


@pytest.fixture(params=[False, True], ids=["shared", "isolate_tools"])
async def each_mode_backend(
    request: pytest.FixtureRequest, target: KvTarget
) -> AsyncIterator[KeyValueBackend]:
    async with target.make(isolate_tools=request.param) as opened:
        yield opened


@pytest.fixture
async def isolated_backend(target: KvTarget) -> AsyncIterator[KeyValueBackend]:
    async with target.make(isolate_tools=True) as opened:
        yield opened


@pytest.fixture(
    params=[("usage_counter", "tool:usage_counter"), ("notes", "session:s1")],
    ids=["tool-private", "shared-scope"],
)
def store(request: pytest.FixtureRequest, backend: KeyValueBackend) -> KeyValueStore:
    tool, scope_id = request.param
    return backend.scoped(tool, scope_id)


# --- get / set / delete / list -------------------------------------------------------------


async def test_scoped_store_satisfies_the_key_value_store_protocol(store: KeyValueStore) -> None:
    assert isinstance(store, KeyValueStore)


async def test_get_of_a_missing_key_returns_none(store: KeyValueStore) -> None:
    assert await store.get("missing") is None


async def test_set_then_get_returns_the_value(store: KeyValueStore) -> None:
    await store.set("greeting", "hello")
    assert await store.get("greeting") == "hello"


async def test_set_overwrites_the_previous_value(store: KeyValueStore) -> None:
    await store.set("greeting", "hello")
    await store.set("greeting", "bonjour")
    assert await store.get("greeting") == "bonjour"


async def test_delete_removes_the_key(store: KeyValueStore) -> None:
    await store.set("greeting", "hello")
    await store.delete("greeting")
    assert await store.get("greeting") is None
    assert await store.list() == []


async def test_delete_of_a_missing_key_is_a_no_op(store: KeyValueStore) -> None:
    await store.delete("missing")
    assert await store.get("missing") is None


async def test_list_returns_keys_with_the_prefix_sorted(store: KeyValueStore) -> None:
    for key in ("topic:b", "other", "topic:a", "topic:c", "topi"):
        await store.set(key, "1")
    assert await store.list("topic:") == ["topic:a", "topic:b", "topic:c"]


async def test_list_without_prefix_returns_every_key_sorted(store: KeyValueStore) -> None:
    for key in ("b", "a", "é", "Z", "a0"):
        await store.set(key, "1")
    assert await store.list() == ["Z", "a", "a0", "b", "é"]


@pytest.mark.parametrize("special", ["%", "_", "\\", "*", "?", "[", "]", "[x]", "\\%"])
async def test_list_takes_wildcard_characters_in_the_prefix_literally(
    store: KeyValueStore, special: str
) -> None:
    literal = [f"{special}1", f"{special}{special}2"]
    decoys = ["x1", "xx2", "1", "\\1", "x", "[1"]
    for key in literal + [d for d in decoys if not d.startswith(special)]:
        await store.set(key, "v")
    assert await store.list(special) == sorted(literal)


async def test_list_is_case_sensitive(store: KeyValueStore) -> None:
    await store.set("apple", "1")
    await store.set("Apple", "1")
    assert await store.list("A") == ["Apple"]


async def test_unicode_keys_and_values_round_trip(store: KeyValueStore) -> None:
    key, value = "ключ/🔑/鍵", "значение ✓ 🎉 \u200b"
    await store.set(key, value)
    assert await store.get(key) == value
    assert await store.list("ключ/") == [key]


async def test_the_empty_key_is_an_ordinary_key(store: KeyValueStore) -> None:
    await store.set("", "empty")
    await store.set("a", "1")
    assert await store.get("") == "empty"
    assert await store.list() == ["", "a"]


async def test_the_empty_value_is_stored_not_treated_as_absent(store: KeyValueStore) -> None:
    await store.set("k", "")
    assert await store.get("k") == ""


async def test_a_ten_megabyte_value_round_trips(store: KeyValueStore) -> None:
    value = "0123456789abcdef" * (10 * 1024 * 1024 // 16)
    await store.set("big", value)
    assert await store.get("big") == value


# --- isolation: spec 04's scope table --------------------------------------------------------


@pytest.mark.parametrize("scope_id", ["session:s1", "personality:p1"])
async def test_tools_asking_for_one_shared_scope_see_the_same_keys(
    backend: KeyValueBackend, scope_id: str
) -> None:
    writer = backend.scoped("planner", scope_id)
    reader = backend.scoped("executor", scope_id)
    await writer.set("plan", "draft")
    assert await writer.increment("steps") == 1
    assert await reader.get("plan") == "draft"
    assert await reader.list() == ["plan", "steps"]
    assert await reader.increment("steps") == 2
    await reader.delete("plan")
    assert await writer.get("plan") is None
    assert await writer.list() == ["steps"]


async def assert_apart(first: KeyValueStore, second: KeyValueStore) -> None:
    """``second`` cannot read, list, count or delete what ``first`` wrote, nor the reverse."""
    await first.set("k", "first's")
    assert await second.get("k") is None
    assert await second.list() == []
    assert await second.increment("k") == 1
    await second.delete("k")
    assert await first.get("k") == "first's"
    assert await first.list() == ["k"]


@pytest.mark.parametrize("second_scope_id", ["tool:second", "tool:first"], ids=["own", "handed"])
async def test_tool_private_scopes_stay_per_tool(
    each_mode_backend: KeyValueBackend, second_scope_id: str
) -> None:
    # "handed": a tool given another tool's private scope id gets an empty partition of its own.
    first = each_mode_backend.scoped("first", "tool:first")
    await assert_apart(first, each_mode_backend.scoped("second", second_scope_id))


async def test_scopes_of_one_tool_do_not_see_each_other(
    each_mode_backend: KeyValueBackend,
) -> None:
    one = each_mode_backend.scoped("notes", "session:one")
    await assert_apart(one, each_mode_backend.scoped("notes", "session:two"))


async def test_different_scope_ids_never_see_each_other(
    each_mode_backend: KeyValueBackend,
) -> None:
    scope_ids = ["session:x", "session:y", "session:X", "personality:x", "tool:notes", "x"]
    for scope_id in scope_ids:
        await each_mode_backend.scoped("notes", scope_id).set("k", scope_id)
    for scope_id in scope_ids:
        store = each_mode_backend.scoped("other", scope_id)
        expected = None if scope_id == "tool:notes" or each_mode_backend.isolate_tools else scope_id
        assert await store.get("k") == expected
        assert await each_mode_backend.scoped("notes", scope_id).get("k") == scope_id
        assert await each_mode_backend.scoped("notes", scope_id).list() == ["k"]


@pytest.mark.parametrize("scope_id", ["session:s", "personality:p"])
async def test_isolate_tools_splits_a_shared_scope_per_tool(
    isolated_backend: KeyValueBackend, scope_id: str
) -> None:
    first = isolated_backend.scoped("first", scope_id)
    await assert_apart(first, isolated_backend.scoped("second", scope_id))
    assert await isolated_backend.scoped("first", scope_id).list() == ["k"]


async def test_switching_isolate_tools_hides_shared_scopes_but_keeps_tool_private_data(
    durable_target: KvTarget,
) -> None:
    async with durable_target.make() as shared:
        await shared.scoped("notes", "session:s").set("k", "shared")
        await shared.scoped("notes", "tool:notes").set("k", "private")
    async with durable_target.make(isolate_tools=True) as isolated:
        assert await isolated.scoped("notes", "session:s").get("k") is None
        assert await isolated.scoped("notes", "tool:notes").get("k") == "private"
        await isolated.scoped("notes", "session:s").set("k", "isolated")
    async with durable_target.make() as shared_again:
        assert await shared_again.scoped("other", "session:s").get("k") == "shared"


async def test_separators_in_names_and_keys_cannot_forge_another_namespace(
    each_mode_backend: KeyValueBackend,
) -> None:
    # Joined naively with ':' the first ones would all be the physical key 'a:b:c:d'; the length
    # prefixes and separate columns keep them apart. The next mimic the Redis layout (with and
    # without a tool), the last a tool-private scope id.
    await check_partitions(
        each_mode_backend,
        [
            ("a", "b:c", "d"),
            ("a:b", "c", "d"),
            ("a", "b", "c:d"),
            ("a:b:c", "d", ""),
            ("a", "b", "1:a:1:b:x"),
            ("a", "1:b:x", ""),
            ("1:a", "b", "x"),
            ("a", "0::1:b", "x"),
            ("b", "0", ":1:b:x"),
            ("a", "tool:a", "k"),
            ("b", "tool:a", "k"),
            ("tool:a", "a", "k"),
        ],
    )


# --- TTL -----------------------------------------------------------------------------------


async def test_a_key_expires_after_its_ttl(store: KeyValueStore) -> None:
    await store.set("short", "v", ttl_seconds=SHORT_TTL)
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.get("short") is None


async def test_an_expired_key_is_not_listed(store: KeyValueStore) -> None:
    await store.set("short", "v", ttl_seconds=SHORT_TTL)
    await store.set("long", "v")
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.list() == ["long"]


async def test_an_expired_counter_restarts_from_zero(store: KeyValueStore) -> None:
    await store.set("hits", "41", ttl_seconds=SHORT_TTL)
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.increment("hits") == 1


async def test_setting_again_without_ttl_removes_the_expiry(store: KeyValueStore) -> None:
    await store.set("k", "short", ttl_seconds=SHORT_TTL)
    await store.set("k", "forever")
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.get("k") == "forever"


async def test_ttl_seconds_default_applies_when_set_has_no_ttl(backend: KeyValueBackend) -> None:
    store = backend.scoped("cache", "session:s", ttl_seconds_default=SHORT_TTL)
    await store.set("k", "v")
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.get("k") is None


async def test_a_per_call_ttl_overrides_a_short_default(backend: KeyValueBackend) -> None:
    store = backend.scoped("cache", "session:s", ttl_seconds_default=SHORT_TTL)
    await store.set("k", "v", ttl_seconds=3600)
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.get("k") == "v"


async def test_a_per_call_ttl_overrides_a_long_default(backend: KeyValueBackend) -> None:
    store = backend.scoped("cache", "session:s", ttl_seconds_default=3600)
    await store.set("k", "v", ttl_seconds=SHORT_TTL)
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.get("k") is None


async def test_a_one_millisecond_ttl_the_shortest_one_expires(store: KeyValueStore) -> None:
    await store.set("k", "v", ttl_seconds=0.001)
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.get("k") is None


async def test_a_counter_created_by_increment_gets_the_default_ttl(
    backend: KeyValueBackend,
) -> None:
    store = backend.scoped("limits", "session:s", ttl_seconds_default=SHORT_TTL)
    assert await store.increment("calls") == 1
    await anyio.sleep(PAST_SHORT_TTL)
    assert await store.get("calls") is None


# --- increment -----------------------------------------------------------------------------


async def test_increment_of_a_missing_key_starts_from_zero(store: KeyValueStore) -> None:
    assert await store.increment("hits") == 1
    assert await store.get("hits") == "1"


async def test_increment_adds_to_a_stored_integer(store: KeyValueStore) -> None:
    await store.set("hits", "41")
    assert await store.increment("hits") == 42
    assert await store.increment("hits", by=-50) == -8
    assert await store.get("hits") == "-8"


async def test_increment_keeps_the_expiry_of_a_live_key(store: KeyValueStore) -> None:
    await store.set("hits", "1", ttl_seconds=LIVE_TTL)
    assert await store.increment("hits") == 2
    await anyio.sleep(PAST_LIVE_TTL)
    assert await store.get("hits") is None


@pytest.mark.parametrize("stored", ["abc", "1.5", " 1", "1 ", "01", "-0", "", "+1", "1e3", "٣"])
async def test_increment_of_a_non_integer_raises_store_error(
    store: KeyValueStore, stored: str
) -> None:
    await store.set("k", stored)
    with pytest.raises(StoreError, match="not an integer"):
        await store.increment("k")
    assert await store.get("k") == stored


async def test_increment_past_64_bits_raises_store_error(store: KeyValueStore) -> None:
    await store.set("k", str(2**63 - 1))
    with pytest.raises(StoreError, match="overflow"):
        await store.increment("k")
    assert await store.get("k") == str(2**63 - 1)


async def test_a_hundred_concurrent_increments_lose_nothing(store: KeyValueStore) -> None:
    results: list[int] = []

    async def bump() -> None:
        results.append(await store.increment("hits"))

    async with anyio.create_task_group() as tg:
        for _ in range(100):
            tg.start_soon(bump)
    assert sorted(results) == list(range(1, 101))
    assert await store.get("hits") == "100"


async def test_increments_from_separate_backends_on_one_store_lose_nothing(
    durable_target: KvTarget,
) -> None:
    async with durable_target.make() as first, durable_target.make() as second:
        stores = [b.scoped("counter", "tool:counter") for b in (first, second)]
        async with anyio.create_task_group() as tg:
            for i in range(100):
                tg.start_soon(stores[i % 2].increment, "hits")
        assert await stores[0].get("hits") == "100"


async def test_a_hundred_concurrent_writers_all_land(store: KeyValueStore) -> None:
    async with anyio.create_task_group() as tg:
        for i in range(100):
            tg.start_soon(store.set, f"key-{i:03}", f"value-{i}")
    assert await store.list("key-") == [f"key-{i:03}" for i in range(100)]
    assert [await store.get(f"key-{i:03}") for i in range(100)] == [
        f"value-{i}" for i in range(100)
    ]


# --- persistence ---------------------------------------------------------------------------


async def test_values_survive_closing_and_reopening_the_backend(durable_target: KvTarget) -> None:
    async with durable_target.make() as first:
        store = first.scoped("notes", "personality:p")
        await store.set("kept", "yes")
        await store.increment("count", by=7)
    async with durable_target.make() as second:
        store = second.scoped("notes", "personality:p")
        assert await store.get("kept") == "yes"
        assert await store.get("count") == "7"
        assert await store.list() == ["count", "kept"]


async def test_purge_expired_leaves_live_keys(
    store: KeyValueStore, backend: KeyValueBackend
) -> None:
    await store.set("short", "v", ttl_seconds=SHORT_TTL)
    await store.set("long", "v")
    await anyio.sleep(PAST_SHORT_TTL)
    await backend.purge_expired()
    assert await store.list() == ["long"]


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [(1, "v"), (None, "v"), (b"k", "v"), ("k", 1), ("k", None), ("k", b"v"), ("k", {"a": 1})],
)
async def test_set_with_a_non_string_key_or_value_raises_store_error(
    store: KeyValueStore, key: object, value: object
) -> None:
    with pytest.raises(StoreError, match="must be a str"):
        await store.set(key, value)  # type: ignore[arg-type]


@pytest.mark.parametrize("ttl", [0, -1, -0.5, float("nan"), float("inf"), 1e12])
async def test_set_with_a_ttl_that_is_not_a_positive_number_raises_store_error(
    store: KeyValueStore, ttl: float
) -> None:
    with pytest.raises(StoreError, match="positive number"):
        await store.set("k", "v", ttl_seconds=ttl)
    assert await store.get("k") is None


@pytest.mark.parametrize("ttl", [0.0009999, 0.0005, 1e-9])
async def test_a_ttl_under_one_millisecond_raises_store_error_on_every_store(
    store: KeyValueStore, ttl: float
) -> None:
    # Redis counts expiry in whole milliseconds; rather than round 0.1 ms up to 1 ms on one
    # store and honour it on the others, every store refuses it (and rounds longer TTLs up to
    # whole milliseconds, so they all expire alike).
    with pytest.raises(StoreError, match=r"from 0\.001 s"):
        await store.set("k", "v", ttl_seconds=ttl)
    assert await store.get("k") is None


@pytest.mark.parametrize("ttl", [True, "10"])
async def test_set_with_a_ttl_that_is_not_a_number_raises_store_error(
    store: KeyValueStore, ttl: object
) -> None:
    with pytest.raises(StoreError, match="number of seconds"):
        await store.set("k", "v", ttl_seconds=ttl)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["nul\x00inside", "lone \ud800 surrogate"])
async def test_keys_and_values_that_cannot_be_stored_as_text_raise_store_error(
    store: KeyValueStore, text: str
) -> None:
    with pytest.raises(StoreError):
        await store.set(text, "v")
    with pytest.raises(StoreError):
        await store.set("k", text)


async def test_get_delete_and_list_reject_non_string_arguments(store: KeyValueStore) -> None:
    with pytest.raises(StoreError, match="key must be a str"):
        await store.get(1)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="key must be a str"):
        await store.delete(None)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="prefix must be a str"):
        await store.list(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("by", [1.5, True, "1", 2**63])
async def test_increment_by_a_non_int64_raises_store_error(
    store: KeyValueStore, by: object
) -> None:
    with pytest.raises(StoreError, match="by="):
        await store.increment("k", by=by)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tool", "scope_id", "ttl_default"),
    [
        ("", "tool:x", None),
        ("x", "", None),
        (1, "tool:x", None),
        ("x", "tool:x", 0),
        ("x", "tool:x", 0.0005),
    ],
)
async def test_scoped_rejects_bad_names_and_default_ttls(
    backend: KeyValueBackend, tool: object, scope_id: object, ttl_default: object
) -> None:
    with pytest.raises(StoreError):
        backend.scoped(tool, scope_id, ttl_seconds_default=ttl_default)  # type: ignore[arg-type]
