"""PostgresKeyValueBackend on a network that goes silent: every wait ends in a StoreError.

Before, asyncpg ran without a command timeout: once the network stopped answering, a `set`
hung until the tool's timeout or, outside the registry, forever.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import anyio
import pytest
from kv_proxies import silenceable_proxy
from kv_targets import POSTGRES_DSN, STORE_OPERATIONS, drop_postgres_table

from service_checks import require_service
from toolwire.errors import ConfigurationError, StoreError
from toolwire.stores import PostgresKeyValueBackend, create_kv_backend

pytestmark = pytest.mark.anyio

LIVENESS_S = 10
"""Far longer than any timeout configured here: the test fails rather than hang."""


@pytest.fixture
async def table() -> AsyncIterator[str]:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    name = f"kv_test_{uuid.uuid4().hex[:12]}"
    try:
        yield name
    finally:
        await drop_postgres_table(name)


@pytest.mark.parametrize("operation", STORE_OPERATIONS)
async def test_an_operation_on_a_silent_network_fails_within_the_command_timeout(
    table: str, operation: str
) -> None:
    async with silenceable_proxy("127.0.0.1", 5432) as proxy:
        dsn = f"postgresql://postgres@127.0.0.1:{proxy.port}/test"
        async with PostgresKeyValueBackend(dsn, table=table, command_timeout_s=0.5) as backend:
            store = backend.scoped("t", "tool:t")
            await store.set("k", "before")  # connected, table created
            proxy.go_silent()
            with (
                anyio.fail_after(LIVENESS_S),
                pytest.raises(
                    StoreError,
                    match=rf"PostgreSQL did not answer {operation} within 0\.5 s "
                    r"\(command_timeout_s\); check .*network",
                ),
            ):
                await STORE_OPERATIONS[operation](store)


async def test_every_later_operation_fails_the_same_way_and_closing_ends(table: str) -> None:
    async with silenceable_proxy("127.0.0.1", 5432) as proxy:
        dsn = f"postgresql://postgres@127.0.0.1:{proxy.port}/test"
        backend = PostgresKeyValueBackend(dsn, table=table, command_timeout_s=0.3)
        store = backend.scoped("t", "tool:t")
        await store.set("k", "before")
        proxy.go_silent()
        with anyio.fail_after(LIVENESS_S):
            for _ in range(3):
                with pytest.raises(StoreError, match=r"did not answer get within 0\.3 s"):
                    await store.get("k")
            await backend.aclose()


async def test_connecting_on_a_silent_network_fails_within_the_connect_timeout(
    table: str,
) -> None:
    async with silenceable_proxy("127.0.0.1", 5432) as proxy:
        proxy.go_silent()
        dsn = f"postgresql://postgres@127.0.0.1:{proxy.port}/test"
        async with PostgresKeyValueBackend(dsn, table=table, connect_timeout_s=0.3) as backend:
            with (
                anyio.fail_after(LIVENESS_S),
                pytest.raises(
                    StoreError,
                    match=r"could not connect to PostgreSQL within 0\.3 s \(connect_timeout_s\)",
                ),
            ):
                await backend.scoped("t", "tool:t").get("k")


def test_the_timeouts_and_pool_size_have_defaults() -> None:
    backend = PostgresKeyValueBackend(POSTGRES_DSN)
    assert (backend.command_timeout_s, backend.connect_timeout_s, backend.max_connections) == (
        30.0,
        5.0,
        10,
    )


async def test_the_timeouts_and_pool_size_are_url_query_parameters(table: str) -> None:
    dsn = f"{POSTGRES_DSN}?command_timeout=2.5&connect_timeout=3&max_connections=4"
    async with create_kv_backend(dsn) as backend:
        assert isinstance(backend, PostgresKeyValueBackend)
        assert (backend.command_timeout_s, backend.connect_timeout_s) == (2.5, 3.0)
        assert backend.max_connections == 4
    # and asyncpg never sees them (it would send them to the server as settings)
    async with PostgresKeyValueBackend(dsn, table=table) as backend:
        store = backend.scoped("t", "tool:t")
        await store.set("k", "v")
        assert await store.get("k") == "v"


def test_a_keyword_wins_over_the_url() -> None:
    dsn = f"{POSTGRES_DSN}?command_timeout=2.5"
    assert PostgresKeyValueBackend(dsn, command_timeout_s=1).command_timeout_s == 1.0


@pytest.mark.parametrize(
    ("options", "query", "named"),
    [
        ({"command_timeout_s": 0}, "", "command_timeout_s"),
        ({"command_timeout_s": -1.0}, "", "command_timeout_s"),
        ({"connect_timeout_s": float("inf")}, "", "connect_timeout_s"),
        ({"max_connections": 0}, "", "max_connections"),
        ({}, "?command_timeout=soon", "command_timeout"),
        ({}, "?connect_timeout=0", "connect_timeout"),
        ({}, "?max_connections=1.5", "max_connections"),
    ],
)
def test_a_bad_timeout_or_pool_size_raises_configuration_error_naming_it(
    options: dict[str, object], query: str, named: str
) -> None:
    with pytest.raises(ConfigurationError, match=named):
        PostgresKeyValueBackend(POSTGRES_DSN + query, **options)  # type: ignore[arg-type]


async def test_backends_creating_one_new_table_at_once_all_succeed(table: str) -> None:
    # CREATE TABLE IF NOT EXISTS races with itself: the loser can be told the table, its row
    # type, or its catalog row already exists; each means "another client made it".
    backends = [PostgresKeyValueBackend(POSTGRES_DSN, table=table) for _ in range(8)]
    try:
        async with anyio.create_task_group() as tg:
            for backend in backends:
                tg.start_soon(backend.scoped("t", "tool:t").increment, "n")
        assert await backends[0].scoped("t", "tool:t").get("n") == "8"
    finally:
        for backend in backends:
            await backend.aclose()


# -- the pool under load ---------------------------------------------------------------------


async def test_operations_take_their_turn_in_the_order_they_asked(table: str) -> None:
    """asyncpg's queue lets a caller that just gave its connection back take it again, or a
    newcomer take it, before the waiter it woke runs: under load some operations waited behind
    hundreds of others (a p99 of seconds through one replica). The gate in front of the pool
    hands each freed turn to the longest waiter, even against a caller asking again at once."""
    async with PostgresKeyValueBackend(POSTGRES_DSN, table=table, max_connections=1) as backend:
        await backend.scoped("t", "tool:t").set("k", "v")  # connected
        entered: list[str] = []

        async def operation(name: str) -> None:
            async with backend._operation(name):  # one turn: what every operation takes
                entered.append(name)

        with anyio.fail_after(LIVENESS_S):
            async with anyio.create_task_group() as group:
                async with backend._operation("holder"):
                    group.start_soon(operation, "first")
                    await anyio.wait_all_tasks_blocked()
                    group.start_soon(operation, "second")
                    await anyio.wait_all_tasks_blocked()
                    assert entered == []  # both wait for the only turn
                await operation("holder again")  # asks at once, before "first" has run
        assert entered == ["first", "second", "holder again"]


async def test_a_connection_goes_back_without_asyncpg_s_reset_round_trip(table: str) -> None:
    import asyncpg

    async with PostgresKeyValueBackend(POSTGRES_DSN, table=table, max_connections=1) as backend:
        store = backend.scoped("t", "tool:t")
        await store.set("k", "v")
        assert await store.get("k") == "v"
        probe = await asyncpg.connect(POSTGRES_DSN)
        try:
            last = await probe.fetch(
                "SELECT query FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                "AND datname = current_database() AND query LIKE '%' || $1 || '%'",
                table,
            )
        finally:
            await probe.close()
        # the pool's one connection last ran the get, not "SELECT pg_advisory_unlock_all(); ..."
        assert [row["query"] for row in last if "SELECT value" in row["query"]], last


async def test_a_transaction_left_open_is_rolled_back_before_the_connection_is_reused() -> None:
    import asyncpg

    from toolwire.stores._postgres import _rollback_if_open

    require_service("PostgreSQL", "127.0.0.1", 5432)
    connection = await asyncpg.connect(POSTGRES_DSN)
    try:
        await connection.execute("BEGIN")
        assert connection.is_in_transaction()
        await _rollback_if_open(connection)
        assert not connection.is_in_transaction()
        await _rollback_if_open(connection)  # nothing open: nothing sent, nothing raised
    finally:
        await connection.close()
