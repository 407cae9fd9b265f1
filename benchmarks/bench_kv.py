"""Key-value stores: toolwire's stores against their raw drivers, get and set, 1 and 16 clients.

Run: ``python benchmarks/bench_kv.py [--ops N] [--repeats R] [--stores sqlite redis postgres]``
with Redis on 127.0.0.1:6379 and PostgreSQL on 127.0.0.1:5432 (user postgres, database
``test``); a missing service is skipped.

Each row is the median of R repeats of N operations on 100-byte values over 64 keys; the
repeats of toolwire and of its baselines alternate, so load from elsewhere hits both alike. The raw
baselines do the same work with the bare driver and no namespacing or validation:

* SQLite: ``sqlite3`` on a WAL file (same pragmas). Two baselines: one call per operation
  through ``anyio.to_thread`` (how async code must call a blocking driver), and inline on the
  event loop (blocks the loop; an upper bound no async store reaches).
* Redis: ``redis.asyncio`` ``GET``/``SET``.
* PostgreSQL: an ``asyncpg`` pool of the same size, one-row upsert and select.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from toolwire.stores import (
    KeyValueBackend,
    PostgresKeyValueBackend,
    RedisKeyValueBackend,
    SqliteKeyValueBackend,
)

REDIS_URL = "redis://127.0.0.1:6379/0"
POSTGRES_DSN = "postgresql://postgres@127.0.0.1:5432/test"
VALUE = "v" * 100
KEYS = [f"key-{i}" for i in range(64)]
CLIENTS = (1, 16)

Op = Callable[[str], Awaitable[Any]]


async def ops_per_second(op: Op, ops: int, clients: int) -> float:
    """Run ``ops`` calls of ``op`` split across ``clients`` concurrent tasks."""
    per_client = ops // clients

    async def client(offset: int) -> None:
        for i in range(per_client):
            await op(KEYS[(offset + i) % len(KEYS)])

    start = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for c in range(clients):
            tg.start_soon(client, c * 7)
    return per_client * clients / (time.perf_counter() - start)


async def median_rates(
    ops_to_compare: list[Op], ops: int, clients: int, repeats: int
) -> list[float]:
    """Median ops/s of each op, their repeats interleaved."""
    for op in ops_to_compare:
        await ops_per_second(op, max(ops // 10, clients), clients)  # warm up
    rates: list[list[float]] = [[] for _ in ops_to_compare]
    for _ in range(repeats):
        for op, samples in zip(ops_to_compare, rates, strict=True):
            samples.append(await ops_per_second(op, ops, clients))
    return [statistics.median(samples) for samples in rates]


def _store_ops(backend: KeyValueBackend) -> dict[str, Op]:
    store = backend.scoped("bench", "tool:bench")

    async def set_op(key: str) -> None:
        await store.set(key, VALUE)

    return {"set": set_op, "get": store.get}


def _sqlite_raw(path: Path) -> tuple[dict[str, Op], dict[str, Op], Callable[[], None]]:
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)")
    lock = anyio.Lock()

    def get(key: str) -> Any:
        return connection.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()

    def put(key: str) -> None:
        connection.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (key, VALUE))

    def threaded(function: Callable[[str], Any]) -> Op:
        async def op(key: str) -> Any:
            async with lock:  # one connection: one thread at a time
                return await anyio.to_thread.run_sync(function, key)

        return op

    def inline(function: Callable[[str], Any]) -> Op:
        async def op(key: str) -> Any:
            result = function(key)
            await anyio.lowlevel.checkpoint()
            return result

        return op

    threaded_ops = {"set": threaded(put), "get": threaded(get)}
    inline_ops = {"set": inline(put), "get": inline(get)}
    return threaded_ops, inline_ops, connection.close


Row = tuple[str, str, int, float, float, str]


async def bench_sqlite(ops: int, repeats: int, rows: list[Row]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        threaded, inline, close = _sqlite_raw(Path(tmp) / "raw.db")
        async with SqliteKeyValueBackend(Path(tmp) / "toolwire.db") as backend:
            ours = _store_ops(backend)
            for name in ("set", "get"):
                for clients in CLIENTS:
                    mine, raw, blocking = await median_rates(
                        [ours[name], threaded[name], inline[name]], ops, clients, repeats
                    )
                    rows.append(("sqlite", name, clients, mine, raw, "sqlite3 via to_thread"))
                    rows.append(
                        ("sqlite", name, clients, mine, blocking, "sqlite3 inline (blocks loop)")
                    )
        close()


async def bench_redis(ops: int, repeats: int, rows: list[Row]) -> None:
    import redis.asyncio

    prefix = f"toolwire-bench:{uuid.uuid4().hex[:8]}"
    raw_client = redis.asyncio.Redis.from_url(REDIS_URL, decode_responses=True)
    backend = RedisKeyValueBackend(REDIS_URL, key_prefix=prefix)
    try:

        async def raw_set(key: str) -> None:
            await raw_client.set(f"{prefix}-raw:{key}", VALUE)

        async def raw_get(key: str) -> Any:
            return await raw_client.get(f"{prefix}-raw:{key}")

        raw_ops = {"set": raw_set, "get": raw_get}
        ours = _store_ops(backend)
        for name in ("set", "get"):
            for clients in CLIENTS:
                mine, raw = await median_rates([ours[name], raw_ops[name]], ops, clients, repeats)
                rows.append(("redis", name, clients, mine, raw, "redis.asyncio"))
    finally:
        await backend.delete_all()
        await raw_client.delete(*[f"{prefix}-raw:{key}" for key in KEYS])
        await raw_client.aclose()
        await backend.aclose()


async def bench_postgres(ops: int, repeats: int, rows: list[Row]) -> None:
    import asyncpg

    suffix = uuid.uuid4().hex[:8]
    pool = await asyncpg.create_pool(POSTGRES_DSN, min_size=1, max_size=10)
    raw_table = f"bench_raw_{suffix}"
    await pool.execute(f"CREATE TABLE {raw_table} (key text PRIMARY KEY, value text NOT NULL)")
    backend = PostgresKeyValueBackend(POSTGRES_DSN, table=f"bench_kv_{suffix}")
    try:
        upsert = (
            f"INSERT INTO {raw_table} VALUES ($1, $2) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
        )
        select = f"SELECT value FROM {raw_table} WHERE key = $1"

        async def raw_set(key: str) -> None:
            await pool.execute(upsert, key, VALUE)

        async def raw_get(key: str) -> Any:
            return await pool.fetchval(select, key)

        raw_ops = {"set": raw_set, "get": raw_get}
        ours = _store_ops(backend)
        for name in ("set", "get"):
            for clients in CLIENTS:
                mine, raw = await median_rates([ours[name], raw_ops[name]], ops, clients, repeats)
                rows.append(("postgres", name, clients, mine, raw, "asyncpg pool"))
    finally:
        await pool.execute(f"DROP TABLE IF EXISTS {raw_table}")
        await pool.execute(f"DROP TABLE IF EXISTS bench_kv_{suffix}")
        await pool.close()
        await backend.aclose()


async def main(ops: int, repeats: int, stores: list[str]) -> None:
    rows: list[Row] = []
    benches = {"sqlite": bench_sqlite, "redis": bench_redis, "postgres": bench_postgres}
    for name in stores:
        bench = benches[name]
        try:
            await bench(ops, repeats, rows)
        except OSError as error:
            print(f"skipped {name}: {error}")
    print(f"{ops} ops per run, median of {repeats} runs, 100-byte values\n")
    print("| store | op | clients | toolwire ops/s | raw ops/s | ratio | raw baseline |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for store, op, clients, mine, raw, baseline in rows:
        print(
            f"| {store} | {op} | {clients} | {mine:,.0f} | {raw:,.0f} | {mine / raw:.2f}x "
            f"| {baseline} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--stores",
        nargs="+",
        default=["sqlite", "redis", "postgres"],
        choices=["sqlite", "redis", "postgres"],
    )
    arguments = parser.parse_args()
    anyio.run(main, arguments.ops, arguments.repeats, arguments.stores)
