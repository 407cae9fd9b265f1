"""session_search through a real registry, on the SQLite FTS5 and PostgreSQL archives."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest
from kv_stores import POSTGRES_DSN
from toolbox_helpers import error_of, ok_value, run

from service_checks import require_service
from toolwire.capabilities.kinds.archive import (
    PostgresSessionArchive,
    SessionArchive,
    SqliteSessionArchive,
)
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.presenting import present
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.toolbox.memory import session_search

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
async def archive(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SessionArchive]:
    if request.param == "sqlite":
        async with SqliteSessionArchive(tmp_path / "state.db") as opened:
            yield opened
        return
    require_service("PostgreSQL", "127.0.0.1", 5432)
    table = f"archive_tools_{uuid.uuid4().hex[:12]}"
    try:
        async with PostgresSessionArchive(POSTGRES_DSN, table=table) as opened:
            yield opened
    finally:
        connection = await asyncpg.connect(POSTGRES_DSN)
        try:
            await connection.execute(f'DROP TABLE IF EXISTS "{table}"')
        finally:
            await connection.close()


@pytest.fixture
async def registry(archive: SessionArchive) -> ToolRegistry:
    registry = ToolRegistry(
        backends=CapabilityBackends(kind_backends={"archive": archive}, processes=None)
    )
    registry.register(session_search)
    await archive.record(
        "old-1",
        "user",
        "we chose postgres for the billing service",
        T0,
        personality="ops",
        user="ana",
    )
    await archive.record(
        "old-2",
        "assistant",
        "billing migration is done",
        T0 + timedelta(hours=1),
        personality="ops",
        user="ana",
    )
    await archive.record("other", "user", "billing secrets of sales", T0, personality="sales")
    await archive.record("solo", "user", "my billing question", T0, user="bo")
    return registry


async def test_hits_are_numbered_with_time_session_role_and_snippet(
    registry: ToolRegistry,
) -> None:
    ctx = ToolContext(session_id="now", personality_id="ops")
    result = await run(registry, ctx, "session_search", query="billing")
    lines = ok_value(result).splitlines()
    assert lines[0] == "2 past messages match 'billing' (scope personality:ops), best first:"
    assert lines[1].startswith("1. [2026-03-01 10:30Z] old-2 · assistant: ")
    assert "**billing**" in lines[1].lower()
    assert lines[2].startswith("2. [2026-03-01 09:30Z] old-1 · user: ")
    assert isinstance(result, Ok)
    assert result.structured is not None
    assert [hit["session"] for hit in result.structured["hits"]] == ["old-2", "old-1"]


async def test_another_personality_sees_nothing_of_ops(registry: ToolRegistry) -> None:
    ctx = ToolContext(session_id="now", personality_id="sales")
    text = ok_value(await run(registry, ctx, "session_search", query="postgres"))
    assert text.startswith("No past messages match 'postgres' (scope personality:sales)")


async def test_without_a_personality_the_sessions_user_scopes_the_search(
    registry: ToolRegistry, archive: SessionArchive
) -> None:
    await archive.record("today", "user", "hello again", T0 + timedelta(days=1), user="bo")
    ctx = ToolContext(session_id="today")
    text = ok_value(await run(registry, ctx, "session_search", query="billing"))
    assert "(scope user:bo)" in text
    assert "solo · user" in text
    assert "old-1" not in text


async def test_with_neither_only_the_session_itself_is_searched(registry: ToolRegistry) -> None:
    ctx = ToolContext(session_id="fresh")
    text = ok_value(await run(registry, ctx, "session_search", query="billing"))
    assert text.startswith("No past messages match 'billing' (scope session:fresh)")


async def test_limit_bounds_the_hits_and_is_validated(registry: ToolRegistry) -> None:
    ctx = ToolContext(session_id="now", personality_id="ops")
    text = ok_value(await run(registry, ctx, "session_search", query="billing", limit=1))
    assert text.startswith("1 past message matches 'billing'")
    bad = error_of(await run(registry, ctx, "session_search", query="billing", limit=500))
    assert (bad.code, bad.field) == (ErrorCode.INPUT_INVALID, "limit")


@pytest.mark.parametrize("query", ['billing" OR (', "NEAR(billing", "*:^-", "\x00billing"])
async def test_odd_queries_answer_without_an_error(registry: ToolRegistry, query: str) -> None:
    ctx = ToolContext(session_id="now", personality_id="ops")
    ok_value(await run(registry, ctx, "session_search", query=query))


async def test_results_are_presented_as_untrusted(registry: ToolRegistry) -> None:
    ctx = ToolContext(session_id="now", personality_id="ops")
    outcome = await registry.execute("session_search", {"query": "billing"}, ctx)
    assert "<untrusted" in present(outcome, registry.get("session_search"))


async def test_without_an_archive_it_is_not_available() -> None:
    registry = ToolRegistry(backends=CapabilityBackends(processes=None))
    registry.register(session_search)
    ctx = ToolContext(session_id="now")
    assert error_of(await run(registry, ctx, "session_search", query="x")).code == (
        ErrorCode.NOT_AVAILABLE
    )
