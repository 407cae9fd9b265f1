"""SqliteKeyValueBackend on real files: durability across ``kill -9``, file handling."""

from __future__ import annotations

import signal
import sqlite3
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from toolwire.errors import StoreError
from toolwire.stores import SqliteKeyValueBackend

pytestmark = pytest.mark.anyio

KEYS = 8

# Rewrites KEYS keys generation after generation, concurrently (so writes share transactions),
# with values of 16 KB to 200 KB spanning many pages. A value is f"{gen}|{size}|" + filler +
# f"|{gen}": a torn write would break the header, the length or the trailer.
WRITER = textwrap.dedent(
    """
    import sys

    import anyio

    from toolwire.stores import SqliteKeyValueBackend

    def value(gen, i):
        size = 16_000 + (gen * 7919 + i * 104_729) % 184_000
        return f"{gen}|{size}|" + chr(97 + (gen + i) % 26) * size + f"|{gen}"

    async def main(path, keys):
        async with SqliteKeyValueBackend(path) as backend:
            store = backend.scoped("writer", "tool:writer")
            gen = 0
            while True:
                gen += 1
                async with anyio.create_task_group() as tg:
                    for i in range(keys):
                        tg.start_soon(store.set, f"k{i}", value(gen, i))
                await store.set("generation", str(gen))
                if gen == 3:
                    print("ready", flush=True)

    anyio.run(main, sys.argv[1], int(sys.argv[2]))
    """
)


def _complete(value: str) -> bool:
    gen, size, rest = value.split("|", 2)
    filler, trailer = rest.rsplit("|", 1)
    return trailer == gen and len(filler) == int(size) and len(set(filler)) == 1


async def test_kill_9_mid_writes_leaves_every_value_old_or_new_and_complete(
    tmp_path: Path,
) -> None:
    path = tmp_path / "kv.db"
    async with await anyio.open_process(
        [sys.executable, "-c", WRITER, str(path), str(KEYS)], stderr=None
    ) as writer:
        assert writer.stdout is not None
        output = b""
        while b"ready\n" not in output:
            output += await writer.stdout.receive()
        await anyio.sleep(0.3)
        writer.send_signal(signal.SIGKILL)
        await writer.wait()
    assert writer.returncode == -signal.SIGKILL

    async with SqliteKeyValueBackend(path) as backend:
        store = backend.scoped("writer", "tool:writer")
        values = [await store.get(f"k{i}") for i in range(KEYS)]
        generation = int(await store.get("generation") or "0")
    assert generation >= 3, generation
    for value in values:
        assert value is not None
        assert _complete(value)
        assert int(value.split("|", 1)[0]) >= generation
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)


async def test_missing_parent_directories_are_created(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "kv.db"
    async with SqliteKeyValueBackend(path) as backend:
        await backend.scoped("t", "tool:t").set("k", "v")
    assert path.is_file()


async def test_the_database_uses_write_ahead_logging(tmp_path: Path) -> None:
    path = tmp_path / "kv.db"
    async with SqliteKeyValueBackend(path) as backend:
        await backend.scoped("t", "tool:t").set("k", "v")
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_a_path_that_cannot_be_opened_raises_store_error(tmp_path: Path) -> None:
    async with SqliteKeyValueBackend(tmp_path) as backend:
        with pytest.raises(StoreError, match="cannot open"):
            await backend.scoped("t", "tool:t").get("k")


async def test_a_closed_backend_raises_store_error(tmp_path: Path) -> None:
    backend = SqliteKeyValueBackend(tmp_path / "kv.db")
    store = backend.scoped("t", "tool:t")
    await store.set("k", "v")
    await backend.aclose()
    with pytest.raises(StoreError, match="closed"):
        await store.get("k")


async def test_a_failing_increment_does_not_undo_writes_batched_with_it(tmp_path: Path) -> None:
    async with SqliteKeyValueBackend(tmp_path / "kv.db") as backend:
        store = backend.scoped("t", "tool:t")
        await store.set("text", "not a number")
        failures: list[StoreError] = []

        async def bad_increment() -> None:
            try:
                await store.increment("text")
            except StoreError as error:
                failures.append(error)

        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(store.set, f"k{i}", "v")
                tg.start_soon(bad_increment)
        assert len(failures) == 20
        assert await store.list("k") == sorted(f"k{i}" for i in range(20))
        assert await store.get("text") == "not a number"


async def test_a_read_does_not_wait_for_another_connection_holding_the_write_lock(
    tmp_path: Path,
) -> None:
    path = tmp_path / "kv.db"
    async with SqliteKeyValueBackend(path, busy_timeout_s=30.0) as backend:
        store = backend.scoped("t", "tool:t")
        await store.set("k", "committed")
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("UPDATE toolwire_kv SET value = 'uncommitted'")
            with anyio.fail_after(5):  # a reader that waited would sit out the 30 s busy timeout
                assert await store.get("k") == "committed"
        finally:
            other.execute("ROLLBACK")
            other.close()


async def test_values_on_both_sides_of_the_inline_read_limit_come_back_whole(
    tmp_path: Path,
) -> None:
    async with SqliteKeyValueBackend(tmp_path / "kv.db") as backend:
        store = backend.scoped("t", "tool:t")
        for size in (65_535, 65_536, 65_537, 200_000):
            value = "é" * size
            await store.set(f"k{size}", value)
            assert await store.get(f"k{size}") == value


async def test_a_write_from_another_backend_is_seen_by_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "kv.db"
    async with SqliteKeyValueBackend(path) as first, SqliteKeyValueBackend(path) as second:
        await first.scoped("t", "tool:t").set("k", "one")
        assert await second.scoped("t", "tool:t").get("k") == "one"
        await first.scoped("t", "tool:t").set("k", "two")
        assert await second.scoped("t", "tool:t").get("k") == "two"
