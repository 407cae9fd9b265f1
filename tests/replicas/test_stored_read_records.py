"""Read records on the shared store: one small entry per (session, file), written per path."""

from __future__ import annotations

import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stores import STORES, store_backend, unique

from toolwire.capabilities._backends import CapabilityBackends
from toolwire.capabilities.seams import ReadRecord
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.replicas import StoredReadRecords
from toolwire.replicas._read_records import LocalReadRecords, TrackedRecords
from toolwire.results import Err, ErrorCode, Ok
from toolwire.stores import KeyValueBackend, create_kv_backend
from toolwire.toolbox import default_tools

pytestmark = pytest.mark.anyio


def test_tracked_records_remember_what_was_set_and_removed() -> None:
    records = TrackedRecords([("/a", ReadRecord(mtime=1.0, read_at_turn=0))])
    records["/b"] = ReadRecord(mtime=2.0, read_at_turn=1)
    records.pop("/a", None)
    records.pop("/missing", None)
    records.setdefault("/c", ReadRecord(mtime=3.0, read_at_turn=1))
    assert set(records.set_keys) == {"/b", "/c"}
    assert records.removed == {"/a", "/missing"}
    del records["/b"]
    assert set(records.set_keys) == {"/c"}
    assert "/b" in records.removed


async def test_fetch_never_overwrites_what_the_call_changed() -> None:
    stored = {
        "/a": ReadRecord(mtime=1.0, read_at_turn=0),
        "/b": ReadRecord(mtime=2.0, read_at_turn=0),
    }
    asked: list[str] = []

    async def source(key: str) -> ReadRecord | None:
        asked.append(key)
        return stored.get(key)

    records = TrackedRecords(source=source)
    records["/a"] = ReadRecord(mtime=9.0, read_at_turn=5)
    records.pop("/b", None)
    await records.fetch(["/a", "/b", "/c"])
    await records.fetch(["/c"])  # fetched once
    assert asked == ["/c"]
    assert dict(records) == {"/a": ReadRecord(mtime=9.0, read_at_turn=5)}


@pytest.mark.parametrize("kind", STORES)
async def test_two_calls_of_one_session_keep_both_their_records(kind: str, tmp_path: Path) -> None:
    async with store_backend(kind, tmp_path) as backend:
        book = StoredReadRecords(backend)
        session = unique("s")
        first, second = book.records(session), book.records(session)  # two replicas
        first["/a"] = ReadRecord(mtime=1.5, read_at_turn=1)
        second["/b"] = ReadRecord(mtime=2.25, read_at_turn=2)
        await book.save(session, first)
        await book.save(session, second)
        seen = await book.load(session, ["/a", "/b", "/c"])
        assert dict(seen) == {
            "/a": ReadRecord(mtime=1.5, read_at_turn=1),
            "/b": ReadRecord(mtime=2.25, read_at_turn=2),
        }
        seen.pop("/a")
        await book.save(session, seen)
        assert set(await book.load(session, ["/a", "/b"])) == {"/b"}
        assert dict(await book.load(unique("other"), ["/a", "/b"])) == {}


@pytest.mark.parametrize("kind", STORES)
async def test_open_loads_nothing_up_front_and_saves_before_the_block_exits(
    kind: str, tmp_path: Path
) -> None:
    async with store_backend(kind, tmp_path) as backend:
        book = StoredReadRecords(backend)
        session = unique("s")
        mtime = 1_700_000_000.123456  # a float that must come back exactly
        async with book.open(session) as records:
            records["/f"] = ReadRecord(mtime=mtime, read_at_turn=3)
        other = StoredReadRecords(backend)  # another replica's book
        async with other.open(session) as records:
            assert dict(records) == {}  # nothing loaded before the call
            assert isinstance(records, TrackedRecords)
            await records.fetch(["/f"])  # what a write asks for (toolbox.stale.fetch_records)
            assert records["/f"].mtime == mtime
        async with other.open(session, needed=False) as records:
            records["/g"] = ReadRecord(mtime=2.0, read_at_turn=4)
        assert set(await book.load(session, ["/f", "/g"])) == {"/f", "/g"}  # still kept


def _count_operations(backend: KeyValueBackend) -> dict[str, list[Any]]:
    """Record every primitive the scoped stores call on ``backend`` (name → arguments)."""
    calls: dict[str, list[Any]] = {}
    for name in (
        "get_value",
        "set_value",
        "delete_value",
        "list_keys",
        "compare_and_set_value",
        "increment_value",
    ):
        method: Callable[..., Awaitable[Any]] = getattr(backend, name)

        async def counted(*args: Any, _name: str = name, _method: Any = method) -> Any:
            calls.setdefault(_name, []).append(args)
            return await _method(*args)

        setattr(backend, name, counted)
    return calls


@pytest.mark.parametrize("kind", STORES)
async def test_a_call_touches_only_the_paths_it_changes_however_many_the_session_has(
    kind: str, tmp_path: Path
) -> None:
    """Regression: one JSON document per session grew with every path it ever read, and each
    call of the stateless clients' shared session read and rewrote all of it."""
    async with store_backend(kind, tmp_path) as backend:
        book = StoredReadRecords(backend)
        session = unique("mcp-cluster")
        for n in range(120):
            async with book.open(session) as records:
                records[f"/work/file-{n}.txt"] = ReadRecord(mtime=float(n), read_at_turn=n)
        calls = _count_operations(backend)
        async with book.open(session) as records:
            assert isinstance(records, TrackedRecords)
            await records.fetch(["/work/file-7.txt"])
            records["/work/file-7.txt"] = ReadRecord(mtime=70.0, read_at_turn=121)
        assert [len(v) for v in calls.values()] == [1, 1]  # one get, one set
        assert set(calls) == {"get_value", "set_value"}
        _, key, value, ttl = calls["set_value"][0]
        assert len(value) < 64
        assert len(key) < 128
        assert ttl is not None
        assert ttl > 0
        assert (await book.get(session, "/work/file-119.txt")) == ReadRecord(
            mtime=119.0, read_at_turn=119
        )


async def test_local_records_keep_the_newest_sessions() -> None:
    book = LocalReadRecords()
    book.local("first")["/a"] = ReadRecord(mtime=1.0, read_at_turn=0)
    for n in range(300):
        book.local(f"s{n}")
    assert "first" not in book.sessions
    assert len(book.sessions) == 256
    async with book.open("s299") as records:
        assert records is book.local("s299")


_PATHS = ["/a", "/b", "/c", "/d"]
_OPS = st.lists(
    st.tuples(st.sampled_from(["set", "pop"]), st.sampled_from(_PATHS), st.integers(0, 5)),
    max_size=6,
)
_ROUNDS = st.lists(st.lists(_OPS, min_size=1, max_size=3), min_size=1, max_size=4)


@pytest.mark.parametrize("kind", STORES)
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rounds=_ROUNDS)
async def test_concurrent_saves_from_several_replicas_equal_the_changes_applied_in_order(
    kind: str, tmp_path: Path, rounds: list[list[list[tuple[str, str, int]]]]
) -> None:
    """Rounds of calls of one session on up to three replicas (each its own connection),
    saved concurrently within a round: every path ends as the last change one of that round's
    calls made to it (or as before, when none touched it), whatever the interleaving."""
    async with (
        store_backend(kind, tmp_path) as one,
        store_backend(kind, tmp_path) as two,
        store_backend(kind, tmp_path) as three,
    ):
        books = [StoredReadRecords(b) for b in (one, two, three)]
        session = unique("s")
        model: dict[str, ReadRecord | None] = dict.fromkeys(_PATHS)
        for calls in rounds:
            saved = [books[n].records(session) for n in range(len(calls))]
            allowed: dict[str, set[ReadRecord | None]] = {}
            for records, ops in zip(saved, calls, strict=True):
                for path, outcome in _apply(records, ops).items():
                    allowed.setdefault(path, set()).add(outcome)
            async with anyio.create_task_group() as group:
                for n, records in enumerate(saved):
                    group.start_soon(books[n].save, session, records)
            seen = await books[0].load(session, _PATHS)
            for path in _PATHS:
                assert seen.get(path) in allowed.get(path, {model[path]})
                model[path] = seen.get(path)


def _apply(
    records: dict[str, ReadRecord], ops: list[tuple[str, str, int]]
) -> dict[str, ReadRecord | None]:
    """Apply ``ops`` to ``records``; each path's last outcome (``None``: removed)."""
    last: dict[str, ReadRecord | None] = {}
    for op, path, mtime in ops:
        if op == "set":
            records[path] = last[path] = ReadRecord(mtime=float(mtime), read_at_turn=mtime)
        else:
            records.pop(path, None)
            last[path] = None
    return last


def _file_tools(work: Path) -> ToolRegistry:
    registry = ToolRegistry(
        backends=CapabilityBackends(fs_read=(str(work),), fs_write=(str(work),))
    )
    registry.register_all(default_tools())
    return registry


@pytest.mark.parametrize("kind", STORES)
async def test_a_file_read_through_one_replica_is_stale_when_written_through_another(
    kind: str, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    target = work / "f.txt"
    target.write_text("original")
    registry = _file_tools(work)
    base = ToolContext(session_id="s", working_dir=str(work))
    async with store_backend(kind, tmp_path) as one, store_backend(kind, tmp_path) as two:
        first, second = StoredReadRecords(one), StoredReadRecords(two)
        session = unique("mcp-cluster")
        async with first.open(session) as records:
            read = await registry.execute(
                "read_file", {"path": "f.txt"}, base.derive(read_mtimes=records)
            )
            assert isinstance(read.result, Ok)
        stat = target.stat()
        os.utime(target, (stat.st_atime, stat.st_mtime + 10))  # someone else saved it
        async with second.open(session) as records:
            ctx = base.derive(read_mtimes=records)
            written = await registry.execute("write_file", {"path": "f.txt", "content": "x"}, ctx)
        assert isinstance(written.result, Err)
        assert written.result.code is ErrorCode.STALE_WRITE
        assert target.read_text() == "original"
        async with second.open(session) as records:  # read again: the write goes through
            ctx = base.derive(read_mtimes=records)
            assert isinstance(
                (await registry.execute("read_file", {"path": "f.txt"}, ctx)).result, Ok
            )
        async with first.open(session) as records:
            ctx = base.derive(read_mtimes=records)
            written = await registry.execute("write_file", {"path": "f.txt", "content": "x"}, ctx)
        assert isinstance(written.result, Ok), written.result
        assert target.read_text() == "x"


async def test_a_write_whose_records_store_is_down_is_an_error_not_a_crash(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "f.txt").write_text("original")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # nothing listens once the probe is closed
    backend = create_kv_backend(f"redis://127.0.0.1:{closed}/0")
    try:
        records = StoredReadRecords(backend).records("s")
        ctx = ToolContext(session_id="s", working_dir=str(work), read_mtimes=records)
        written = await _file_tools(work).execute(
            "write_file", {"path": "f.txt", "content": "x"}, ctx
        )
        assert isinstance(written.result, Err)
        assert (work / "f.txt").read_text() == "original"  # not written unchecked
    finally:
        await backend.aclose()
