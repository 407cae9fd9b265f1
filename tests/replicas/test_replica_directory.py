"""Heartbeats on the shared store: who is alive, and a stopped replica that is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from stores import STORES, store_backend, unique

from toolwire.errors import ConfigurationError
from toolwire.replicas import ReplicaSettings, ReplicaState
from toolwire.replicas._directory import DIRECTORY_KEY, HEARTBEATS_TOOL
from toolwire.stores import KeyValueBackend
from toolwire.stores._memory import MemoryKeyValueBackend
from toolwire.stores._redis import RedisKeyValueBackend

pytestmark = pytest.mark.anyio


def _settings(name: str, heartbeat_s: float = 5.0) -> ReplicaSettings:
    return ReplicaSettings(
        enabled=True, replica_id=name, address=f"http://{name}:1", heartbeat_s=heartbeat_s
    )


@pytest.mark.parametrize("kind", STORES)
async def test_replicas_see_each_other_and_a_clean_stop_leaves_at_once(
    kind: str, tmp_path: Path
) -> None:
    async with store_backend(kind, tmp_path) as backend:
        a, b = unique("a"), unique("b")
        async with ReplicaState(backend, _settings(a)).running() as first:
            async with ReplicaState(backend, _settings(b)).running() as second:
                assert second.directory.lookup(a) is not None  # read at its first beat
                await first.directory.beat()
                seen = first.directory.lookup(b)
                assert seen is not None
                assert seen.address == f"http://{b}:1"
            assert await first.directory.find(b) is None  # left: its heartbeat removed
            assert first.directory.lookup(b) is None


@pytest.mark.parametrize("kind", STORES)
async def test_a_replica_that_stops_beating_expires(kind: str, tmp_path: Path) -> None:
    async with store_backend(kind, tmp_path) as backend:
        dying = ReplicaState(backend, _settings(unique("dying"), heartbeat_s=0.3))
        await dying.directory.beat()  # one beat, then silence (as if killed): no leave()
        watcher = ReplicaState(backend, _settings(unique("watcher")))
        assert await watcher.directory.find(dying.replica_id) is not None
        with anyio.fail_after(10):  # three missed beats (0.9 s), then the store drops it
            while await watcher.directory.find(dying.replica_id) is not None:
                await anyio.sleep(0.1)


def test_a_memory_store_is_refused_for_replicas() -> None:
    with pytest.raises(ConfigurationError, match="shared store"):
        ReplicaState(MemoryKeyValueBackend(), _settings("api-1"))


def _count_primitives(backend: KeyValueBackend) -> list[str]:
    """The names of the primitives the scoped stores call on ``backend``, in order."""
    calls: list[str] = []
    for name in ("get_value", "set_value", "delete_value", "list_keys", "compare_and_set_value"):
        method = getattr(backend, name)

        async def counted(*args: Any, _name: str = name, _method: Any = method) -> Any:
            calls.append(_name)
            return await _method(*args)

        setattr(backend, name, counted)
    return calls


@pytest.mark.parametrize("kind", STORES)
async def test_a_heartbeat_costs_two_operations_whatever_else_the_store_holds(
    kind: str, tmp_path: Path
) -> None:
    """Regression: a beat listed the namespace (on Redis a SCAN of the whole database) and
    read every replica's key."""
    async with store_backend(kind, tmp_path) as backend:
        others = [ReplicaState(backend, _settings(unique("peer"))) for _ in range(4)]
        for peer in others:
            await peer.directory.beat()
        unrelated = backend.scoped("some_tool", f"tool:{unique('t')}")
        for n in range(30):
            await unrelated.set(f"k{n}", "v", ttl_seconds=60)
        me = ReplicaState(backend, _settings(unique("me")))
        calls = _count_primitives(backend)
        await me.directory.beat()
        assert calls == ["get_value", "compare_and_set_value"]
        assert {p.replica_id for p in others} <= {i.replica_id for i in me.directory.live}
        for peer in [*others, me]:
            await peer.directory.leave()


async def test_a_heartbeat_on_redis_sends_the_same_commands_with_many_unrelated_keys(
    tmp_path: Path,
) -> None:
    """Counted in Redis commands: a SCAN over the database grew with every key in it."""
    async with store_backend("redis", tmp_path) as backend:
        assert isinstance(backend, RedisKeyValueBackend)
        me = ReplicaState(backend, _settings(unique("me")))
        await me.directory.beat()
        client = backend._client  # the commands it sends are what this test counts
        sent: list[str] = []
        execute = client.execute_command

        async def counted(*args: Any, **options: Any) -> Any:
            sent.append(str(args[0]))
            return await execute(*args, **options)

        client.execute_command = counted  # type: ignore[method-assign]
        await me.directory.beat()
        few = list(sent)
        filler = unique("unrelated")
        async with client.pipeline(transaction=False) as pipe:
            for n in range(5000):
                pipe.set(f"{filler}:{n}", "x", px=60_000)
            await pipe.execute()
        try:
            sent.clear()
            await me.directory.beat()
            assert sent == few
            assert len(sent) <= 3  # GET, then the compare-and-set script (EVALSHA, maybe EVAL)
        finally:
            async with client.pipeline(transaction=False) as pipe:
                for n in range(5000):
                    pipe.delete(f"{filler}:{n}")
                await pipe.execute()
            await me.directory.leave()


@pytest.mark.parametrize("kind", STORES)
async def test_a_dead_replica_is_dropped_from_the_directory(kind: str, tmp_path: Path) -> None:
    async with store_backend(kind, tmp_path) as backend:
        dying = ReplicaState(backend, _settings(unique("dying"), heartbeat_s=0.2))
        await dying.directory.beat()
        await anyio.sleep(0.7)  # three missed beats (0.6 s)
        watcher = ReplicaState(backend, _settings(unique("watcher")))
        await watcher.directory.beat()
        stored = await backend.scoped(HEARTBEATS_TOOL, f"tool:{HEARTBEATS_TOOL}").get(DIRECTORY_KEY)
        assert stored is not None
        assert dying.replica_id not in json.loads(stored)  # the document stays bounded
        assert watcher.replica_id in json.loads(stored)
        await watcher.directory.leave()
