"""Redis and PostgreSQL backends when the server is missing, and their driver-level layout."""

from __future__ import annotations

import pytest
import redis.asyncio
from kv_targets import REDIS_URL

from service_checks import require_service
from toolwire.errors import ConfigurationError, StoreError
from toolwire.stores import PostgresKeyValueBackend, RedisKeyValueBackend
from toolwire.stores._postgres import escape_like
from toolwire.stores._redis import escape_glob

pytestmark = pytest.mark.anyio

# Port 9 (discard) is closed on the test machine: connecting is refused at once.
CLOSED_PORT = 9


async def test_an_unreachable_redis_raises_store_error_on_first_use() -> None:
    async with RedisKeyValueBackend(f"redis://127.0.0.1:{CLOSED_PORT}/0") as backend:
        with pytest.raises(StoreError, match="cannot reach Redis"):
            await backend.scoped("t", "tool:t").get("k")


async def test_an_unreachable_postgres_raises_store_error_on_first_use() -> None:
    dsn = f"postgresql://postgres@127.0.0.1:{CLOSED_PORT}/test"
    async with PostgresKeyValueBackend(dsn) as backend:
        with pytest.raises(StoreError, match="cannot reach PostgreSQL"):
            await backend.scoped("t", "tool:t").get("k")


def test_a_malformed_redis_url_raises_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="redis://"):
        RedisKeyValueBackend("redis://127.0.0.1:notaport/0")


@pytest.mark.parametrize("table", ["kv; DROP TABLE users", "1kv", "kv-store", ""])
def test_a_postgres_table_name_that_is_not_a_plain_name_raises(table: str) -> None:
    with pytest.raises(ConfigurationError, match="plain SQL name"):
        PostgresKeyValueBackend("postgresql://localhost/test", table=table)


def test_escape_glob_escapes_every_redis_glob_special() -> None:
    assert escape_glob("a*b?c[d]e\\f^g") == "a\\*b\\?c\\[d\\]e\\\\f^g"


def test_escape_like_escapes_backslash_percent_and_underscore() -> None:
    assert escape_like("a%b_c\\d") == "a\\%b\\_c\\\\d"


@pytest.mark.parametrize(
    ("isolate_tools", "tool", "scope_id", "redis_key"),
    [
        (False, "tool:x", "session:1", "toolwire-test:layout:0::9:session:1:k"),
        (False, "x", "tool:x", "toolwire-test:layout:1:x:6:tool:x:k"),
        (True, "tool:x", "session:1", "toolwire-test:layout:6:tool:x:9:session:1:k"),
    ],
    ids=["shared-scope", "tool-private", "isolate_tools"],
)
async def test_redis_keys_carry_length_prefixed_namespaces(
    isolate_tools: bool, tool: str, scope_id: str, redis_key: str
) -> None:
    require_service("Redis", "127.0.0.1", 6379)
    async with RedisKeyValueBackend(
        REDIS_URL, key_prefix="toolwire-test:layout", isolate_tools=isolate_tools
    ) as backend:
        await backend.scoped(tool, scope_id).set("k", "v")
        raw = redis.asyncio.Redis.from_url(REDIS_URL, decode_responses=True)
        try:
            assert await raw.get(redis_key) == "v"
        finally:
            await raw.aclose()
            await backend.delete_all()
