"""`TokenStore` on every real store: tokens verify, stay hashed, list without their secret,
revoke, expire; replicas on one store see each other's tokens; nothing else verifies."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service_checks import require_service
from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth._credentials import TokenRejected
from toolwire.mcp.server.auth._verifier import CredentialVerifier
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.tokens import TokenStore, token_hash
from toolwire.stores import (
    KeyValueBackend,
    MemoryKeyValueBackend,
    PostgresKeyValueBackend,
    RedisKeyValueBackend,
    SqliteKeyValueBackend,
)

pytestmark = pytest.mark.anyio
REDIS_URL = "redis://127.0.0.1:6379/0"
POSTGRES_DSN = "postgresql://postgres@127.0.0.1:5432/test"
ALPHA = Grant.of(toolsets=["alpha"])


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["memory", "sqlite", "redis", "postgres"])
async def make_backend(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], KeyValueBackend]]:
    """Backends on one physical store (each call: another "replica" of the same store)."""
    unique = uuid.uuid4().hex[:12]
    kind = request.param
    opened: list[KeyValueBackend] = []
    shared_memory = MemoryKeyValueBackend()

    def make() -> KeyValueBackend:
        if kind == "memory":
            return shared_memory
        if kind == "sqlite":
            backend: KeyValueBackend = SqliteKeyValueBackend(tmp_path / "kv.db")
        elif kind == "redis":
            backend = RedisKeyValueBackend(REDIS_URL, key_prefix=f"toolwire-test:{unique}")
        else:
            backend = PostgresKeyValueBackend(POSTGRES_DSN, table=f"kv_test_{unique}")
        opened.append(backend)
        return backend

    if kind == "redis":
        require_service("Redis", "127.0.0.1", 6379)
    if kind == "postgres":
        require_service("PostgreSQL", "127.0.0.1", 5432)
    try:
        yield make
    finally:
        for backend in opened:
            await backend.aclose()
        if kind == "redis":
            async with RedisKeyValueBackend(
                REDIS_URL, key_prefix=f"toolwire-test:{unique}"
            ) as cleaner:
                await cleaner.delete_all()
        if kind == "postgres":
            connection = await asyncpg.connect(POSTGRES_DSN)
            try:
                await connection.execute(f'DROP TABLE IF EXISTS "kv_test_{unique}"')
            finally:
                await connection.close()


async def test_a_token_verifies_on_another_replica_and_is_stored_hashed(
    make_backend: Callable[[], KeyValueBackend],
) -> None:
    cli, server = TokenStore(make_backend()), TokenStore(make_backend())
    issued = await cli.create("ci", ALPHA)
    assert issued.token.startswith(f"tw_{issued.record.id}_")
    record = await server.verify(issued.token)
    assert record is not None
    assert (record.name, record.grant) == ("ci", ALPHA)
    raw = make_backend().scoped("toolwire.auth", "tool:toolwire.auth")
    stored = [await raw.get(key) for key in await raw.list("")]
    assert len(stored) == 1
    assert stored[0] is not None
    assert issued.token not in stored[0]
    assert issued.token.split("_", 2)[2] not in stored[0]
    assert token_hash(issued.token) in stored[0]


async def test_list_shows_no_secret_and_revoke_by_id_or_name(
    make_backend: Callable[[], KeyValueBackend],
) -> None:
    store = TokenStore(make_backend())
    first = await store.create("first", ALPHA)
    second = await store.create("second", Grant.of(tools=["echo"]))
    listed = await store.list()
    assert [r.name for r in listed] == ["first", "second"]
    assert all(not hasattr(r, "token") for r in listed)
    assert (await store.revoke(first.record.id)) is not None
    assert (await store.revoke("second")) is not None
    assert await store.revoke("second") is None
    assert await store.list() == []
    for issued in (first, second):
        assert await store.verify(issued.token) is None


async def test_a_revocation_on_one_replica_is_seen_by_the_others(
    make_backend: Callable[[], KeyValueBackend],
) -> None:
    """Replicas share nothing but the store: a token revoked through one is refused by every
    other at once when it does not cache, and once its cache time is over when it does."""
    cli = TokenStore(make_backend())
    replicas = [TokenStore(make_backend()) for _ in range(2)]
    cached = TokenStore(make_backend(), cache_s=0.2)
    issued = await cli.create(f"r-{uuid.uuid4().hex[:8]}", ALPHA)
    for store in (*replicas, cached):
        assert await store.verify(issued.token) is not None
    assert (await cli.revoke(issued.record.name)) is not None
    for store in replicas:
        assert await store.verify(issued.token) is None
    await anyio.sleep(0.3)  # past the cache time: the order of events is what is asserted
    assert await cached.verify(issued.token) is None


async def test_tokens_made_and_revoked_by_the_cli_in_another_process(tmp_path: Path) -> None:
    """``toolwire token create|revoke`` run as their own processes on the SQLite store a
    server reads; the server sees the token, then its revocation. ``[auth]`` comes from
    ``TOOLWIRE_AUTH_TOKENS`` only (the file has no ``[auth]`` table)."""
    (tmp_path / "toolwire.toml").write_text('[store]\nurl = "sqlite:///kv.db"\n')
    env = {
        **os.environ,
        "TOOLWIRE_CONFIG": str(tmp_path / "toolwire.toml"),
        "TOOLWIRE_AUTH_TOKENS": "true",
        "NO_COLOR": "1",
    }

    def toolwire(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "toolwire", "token", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )

    made = toolwire("create", "--name", "ci", "--toolsets", "alpha")
    token = made.stdout.strip()
    assert "servers accept it once" not in made.stderr  # auth is on, from the environment
    async with SqliteKeyValueBackend(tmp_path / "kv.db") as backend:
        server = TokenStore(backend)
        record = await server.verify(token)
        assert record is not None
        assert (record.name, record.grant) == ("ci", ALPHA)
        await anyio.to_thread.run_sync(lambda: toolwire("revoke", "ci"))
        assert await server.verify(token) is None


async def test_a_token_with_anything_around_it_is_refused() -> None:
    store = TokenStore(MemoryKeyValueBackend())
    token = (await store.create("exact", ALPHA)).token
    for variant in (token + "\n", token + " ", " " + token, token.upper(), token + "A"):
        assert await store.verify(variant) is None, repr(variant)


async def test_names_are_unique_and_grants_must_open_something(
    make_backend: Callable[[], KeyValueBackend],
) -> None:
    store = TokenStore(make_backend())
    await store.create("ci", ALPHA)
    with pytest.raises(ConfigurationError, match="exists"):
        await store.create("ci", ALPHA)
    with pytest.raises(ConfigurationError, match="must open something"):
        await store.create("nothing", Grant())
    with pytest.raises(ConfigurationError, match="token name"):
        await store.create("has space", ALPHA)
    with pytest.raises(ConfigurationError, match="already have expired"):
        await store.create("past", ALPHA, expires_at=time.time() - 1)


async def test_an_expired_token_no_longer_verifies_or_lists() -> None:
    store = TokenStore(MemoryKeyValueBackend())
    issued = await store.create("short", ALPHA, expires_at=time.time() + 3600)
    assert await store.verify(issued.token) is not None
    record = issued.record
    assert record.expired(time.time() + 3601)
    assert not record.expired(time.time())
    gone = await store.create("gone", ALPHA, expires_at=time.time() + 0.05)
    await anyio.sleep(0.1)  # past its expiry (order, not speed, is what is checked)
    assert await store.verify(gone.token) is None
    assert [r.name for r in await store.list()] == ["short"]


async def test_the_cache_trusts_a_token_only_for_its_time() -> None:
    backend = MemoryKeyValueBackend()
    cached, uncached = TokenStore(backend, cache_s=3600), TokenStore(backend)
    issued = await uncached.create("ci", ALPHA)
    assert await cached.verify(issued.token) is not None
    await uncached.revoke("ci")  # another process revoked it
    assert await uncached.verify(issued.token) is None
    assert await cached.verify(issued.token) is not None  # within the cache time
    assert await cached.revoke(issued.record.id) is None  # gone already; the cache is emptied
    assert await cached.verify(issued.token) is None


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    guess=st.text(max_size=80) | st.from_regex(r"tw_[0-9a-f]{12}_[A-Za-z0-9_-]{43}", fullmatch=True)
)
async def test_nothing_but_the_issued_token_verifies(guess: str) -> None:
    store = TokenStore(_PROPERTY_BACKEND)
    if not _ISSUED:
        _ISSUED.append((await store.create("prop", Grant.of(toolsets=["*"]))).token)
    token = _ISSUED[0]
    assert (await store.verify(token)) is not None
    if guess != token:
        assert await store.verify(guess) is None
    near = token[:-1] + ("A" if token[-1] != "A" else "B")  # one character off
    assert await store.verify(near) is None


_PROPERTY_BACKEND = MemoryKeyValueBackend()
_ISSUED: list[str] = []


async def test_a_verified_principal_is_reused_only_while_the_store_vouches_for_it() -> None:
    backend = MemoryKeyValueBackend()
    cli = TokenStore(backend)
    server = TokenStore(backend, cache_s=3600)
    verifier = CredentialVerifier(tokens=server, oauth=None)
    issued = await cli.create("ci", ALPHA)
    first = await verifier.check(issued.token)
    assert await verifier.check(issued.token) is first  # the store's cache: the same record
    assert first.token.startswith("sha256:")
    assert issued.token not in repr(first)
    assert await server.revoke("ci") is not None  # this replica's cache is emptied
    with pytest.raises(TokenRejected):
        await verifier.check(issued.token)
    again = await cli.create("ci", ALPHA)
    assert (await verifier.check(again.token)).subject == again.record.id
