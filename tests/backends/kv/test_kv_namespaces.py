"""Which `Namespace` a tool reaches for a scope id, and how stores and backends show it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from toolwire.errors import ConfigurationError
from toolwire.stores import (
    KeyValueBackend,
    MemoryKeyValueBackend,
    Namespace,
    PostgresKeyValueBackend,
    RedisKeyValueBackend,
    ScopedKeyValueStore,
    SqliteKeyValueBackend,
)

CONSTRUCTORS: dict[str, Callable[..., KeyValueBackend]] = {
    "memory": MemoryKeyValueBackend,
    "sqlite": lambda **options: SqliteKeyValueBackend(":memory:", **options),
    "redis": lambda **options: RedisKeyValueBackend("redis://127.0.0.1:6379/0", **options),
    "postgres": lambda **options: PostgresKeyValueBackend("postgresql://u@h/db", **options),
}


@pytest.mark.parametrize("scope_id", ["session:s1", "personality:p1", "custom"])
def test_a_shared_scope_is_one_partition_with_no_tool(scope_id: str) -> None:
    assert Namespace.of("a", scope_id) == Namespace.of("b", scope_id)
    assert Namespace.of("a", scope_id) == Namespace(tool="", scope_id=scope_id)
    assert Namespace.of("a", scope_id).shared


def test_a_tool_private_scope_belongs_to_the_asking_tool() -> None:
    assert Namespace.of("a", "tool:a") == Namespace(tool="a", scope_id="tool:a")
    assert Namespace.of("b", "tool:a") != Namespace.of("a", "tool:a")
    assert not Namespace.of("a", "tool:a").shared


@pytest.mark.parametrize("scope_id", ["session:s1", "personality:p1", "tool:a"])
def test_isolate_tools_gives_every_scope_to_the_asking_tool(scope_id: str) -> None:
    namespace = Namespace.of("a", scope_id, isolate_tools=True)
    assert namespace == Namespace(tool="a", scope_id=scope_id)
    assert not namespace.shared


def test_a_shared_store_says_it_has_no_tool() -> None:
    store = MemoryKeyValueBackend().scoped("notes", "session:s1")
    assert isinstance(store, ScopedKeyValueStore)
    assert store.namespace == Namespace(tool="", scope_id="session:s1")
    assert repr(store) == "ScopedKeyValueStore(scope_id='session:s1')"


def test_a_tool_private_store_names_its_tool() -> None:
    store = MemoryKeyValueBackend().scoped("notes", "tool:notes")
    assert isinstance(store, ScopedKeyValueStore)
    assert store.namespace == Namespace(tool="notes", scope_id="tool:notes")
    assert repr(store) == "ScopedKeyValueStore(tool='notes', scope_id='tool:notes')"


def test_an_isolated_store_names_its_tool_in_a_session_scope() -> None:
    store = MemoryKeyValueBackend(isolate_tools=True).scoped("notes", "session:s1")
    assert isinstance(store, ScopedKeyValueStore)
    assert store.namespace == Namespace(tool="notes", scope_id="session:s1")
    assert repr(store) == "ScopedKeyValueStore(tool='notes', scope_id='session:s1')"


@pytest.mark.parametrize(
    ("backend", "shown"),
    [
        (MemoryKeyValueBackend(), "MemoryKeyValueBackend()"),
        (MemoryKeyValueBackend(isolate_tools=True), "MemoryKeyValueBackend(isolate_tools=True)"),
        (SqliteKeyValueBackend("kv.db"), "SqliteKeyValueBackend('kv.db')"),
        (
            SqliteKeyValueBackend("kv.db", isolate_tools=True),
            "SqliteKeyValueBackend('kv.db', isolate_tools=True)",
        ),
        (
            RedisKeyValueBackend(key_prefix="p", isolate_tools=True),
            "RedisKeyValueBackend(key_prefix='p', isolate_tools=True)",
        ),
        (
            PostgresKeyValueBackend("postgresql://u@h/db", isolate_tools=True),
            "PostgresKeyValueBackend(table='toolwire_kv', isolate_tools=True)",
        ),
    ],
)
def test_a_backend_repr_shows_isolate_tools_only_when_set(
    backend: KeyValueBackend, shown: str
) -> None:
    assert repr(backend) == shown


@pytest.mark.parametrize("kind", CONSTRUCTORS)
@pytest.mark.parametrize("value", ["yes", 1, None])
def test_every_backend_refuses_a_non_bool_isolate_tools(kind: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=r"isolate_tools must be True or False.*=True"):
        CONSTRUCTORS[kind](isolate_tools=value)
