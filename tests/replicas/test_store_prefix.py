"""``redis://...?prefix=team-a``: clusters sharing one Redis database never meet."""

from __future__ import annotations

from pathlib import Path

import pytest
from stores import shared_store_url, unique

from toolwire.errors import ConfigurationError
from toolwire.replicas import ReplicaSettings, ReplicaState
from toolwire.stores import create_kv_backend
from toolwire.stores._redis import DEFAULT_KEY_PREFIX, RedisKeyValueBackend

pytestmark = pytest.mark.anyio


async def test_two_clusters_with_their_own_prefix_share_a_database_apart(
    tmp_path: Path,
) -> None:
    url = shared_store_url("redis", tmp_path)
    team_a, team_b = unique("team-a"), unique("team-b")
    a = create_kv_backend(f"{url}?prefix={team_a}&max_connections=5")
    b = create_kv_backend(f"{url}?prefix={team_b}")
    try:
        assert isinstance(a, RedisKeyValueBackend)
        assert a.key_prefix == team_a
        assert a.max_connections == 5  # the other parameters still read
        one = ReplicaSettings(enabled=True, replica_id="api-1", cluster="main")
        two = ReplicaSettings(enabled=True, replica_id="api-2", cluster="main")
        async with (  # one cluster name in both; each sees only its own replicas
            ReplicaState(a, one).running() as first,
            ReplicaState(b, two).running() as second,
        ):
            await first.directory.beat()
            assert [r.replica_id for r in first.directory.live] == ["api-1"]
            assert [r.replica_id for r in second.directory.live] == ["api-2"]
            store_a, store_b = a.scoped("t", "session:s"), b.scoped("t", "session:s")
            await store_a.set("k", "from a")
            assert await store_b.get("k") is None
            await store_b.set("k", "from b")
            assert await store_a.get("k") == "from a"
            raw = a._client  # the keys as Redis holds them
            assert [k async for k in raw.scan_iter(match=f"{team_a}:*")]
        assert await a.delete_all() >= 1
        assert await b.get_value(store_b.namespace, "k") == "from b"  # a's purge spared b
        await b.delete_all()
    finally:
        await a.aclose()
        await b.aclose()


def test_the_keyword_wins_over_the_url_and_an_empty_prefix_is_refused() -> None:
    backend = RedisKeyValueBackend("redis://127.0.0.1:6379/0?prefix=url", key_prefix="kw")
    assert backend.key_prefix == "kw"
    assert RedisKeyValueBackend("redis://127.0.0.1:6379/0").key_prefix == DEFAULT_KEY_PREFIX
    assert RedisKeyValueBackend("redis://127.0.0.1:6379/0?prefix=a%3Ab").key_prefix == "a:b"
    with pytest.raises(ConfigurationError, match="prefix"):
        RedisKeyValueBackend("redis://127.0.0.1:6379/0?prefix=")
    with pytest.raises(ConfigurationError, match="key_prefix"):
        RedisKeyValueBackend("redis://127.0.0.1:6379/0", key_prefix="")
