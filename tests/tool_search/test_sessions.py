"""Found tools: callable in the session that found them, through the snapshot gate only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ts_helpers import catalogue, make

from toolwire.calls import ToolCall
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.principals import Principal
from toolwire.providers._base import ProviderContext
from toolwire.providers._snapshot import NOT_OFFERED, take_snapshot
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok
from toolwire.stores._sqlite import SqliteKeyValueBackend
from toolwire.tool_search import ToolSearch

pytestmark = pytest.mark.anyio

CREATE = "mcp__jira__jira_create_issue"


def _registry(**kwargs: Any) -> tuple[ToolRegistry, ToolSearch]:
    registry = ToolRegistry(**kwargs)
    registry.register(make("always_there", "Always offered.", defer=False))
    registry.register_all(catalogue())
    search = registry.tool_search
    assert isinstance(search, ToolSearch)
    return registry, search


async def _find(registry: ToolRegistry, session: str, query: str, **ctx: Any) -> dict[str, Any]:
    outcome = await registry.execute(
        "tool_search", {"query": query}, ToolContext(session_id=session, **ctx)
    )
    assert isinstance(outcome.result, Ok)
    assert outcome.result.structured is not None
    return outcome.result.structured


async def _call(registry: ToolRegistry, search: ToolSearch, session: str, name: str, **ctx: Any):  # type: ignore[no-untyped-def]
    principal = ctx.get("principal")
    snapshot = await search.snapshot(ProviderContext(session_id=session), principal=principal)
    outcomes = await registry.execute_parallel(
        [ToolCall(id="c1", name=name, args={})],
        ToolContext(session_id=session, **ctx),
        snapshot=snapshot,
    )
    return outcomes[0].result


async def test_a_deferred_tool_never_found_answers_not_offered_and_does_not_run() -> None:
    registry, search = _registry()
    direct = await registry.execute(CREATE, {}, ToolContext(session_id="s1"))
    assert isinstance(direct.result, Err)
    assert direct.result.code == ErrorCode.NOT_AVAILABLE
    assert direct.result.reason == NOT_OFFERED
    through_snapshot = await _call(registry, search, "s1", CREATE)
    assert isinstance(through_snapshot, Err)
    assert through_snapshot.reason == NOT_OFFERED
    plain = await take_snapshot(registry, ProviderContext(session_id="s1"))
    assert CREATE not in plain


async def test_what_tool_search_returns_is_offered_and_callable_in_that_session_only() -> None:
    registry, search = _registry()
    found = await _find(registry, "s1", "file a ticket in jira")
    assert found["tools"][0]["name"] == CREATE
    assert set(found["tools"][0]) >= {"name", "description", "score", "group", "parameters"}
    assert found["tools"][0]["group"] == "jira"

    snapshot = await search.snapshot(ProviderContext(session_id="s1"))
    offered = [d["name"] for d in registry.definitions(snapshot=snapshot)]
    returned = {t["name"] for t in found["tools"]}
    assert set(offered) == returned | {"always_there", "tool_search"}
    assert "mcp__slack__slack_post_message" not in offered  # not found: still deferred

    assert await _call(registry, search, "s1", CREATE) == Ok("ran for s1")
    other = await _call(registry, search, "s2", CREATE)
    assert isinstance(other, Err)
    assert other.reason == NOT_OFFERED
    without_snapshot = await registry.execute(CREATE, {}, ToolContext(session_id="s1"))
    assert isinstance(without_snapshot.result, Err)  # found, but only a snapshot offers it


async def test_another_principal_with_the_same_session_id_finds_nothing_of_it() -> None:
    registry, search = _registry()
    alice = Principal.of_credential(issuer="idp", client="app", subject="alice")
    mallory = Principal.of_credential(issuer="idp", client="app", subject="mallory")
    await _find(registry, "shared-id", "file a ticket in jira", principal=alice)
    assert await _call(registry, search, "shared-id", CREATE, principal=alice) == Ok(
        "ran for shared-id"
    )
    stolen = await _call(registry, search, "shared-id", CREATE, principal=mallory)
    assert isinstance(stolen, Err)
    assert stolen.reason == NOT_OFFERED
    local = await _call(registry, search, "shared-id", CREATE)
    assert isinstance(local, Err)
    assert local.reason == NOT_OFFERED


async def test_replicas_on_one_store_share_what_a_session_found(tmp_path: Path) -> None:
    backend = SqliteKeyValueBackend(tmp_path / "kv.sqlite")
    try:
        first, _ = _registry(backends=CapabilityBackends(kv_store_factory=backend.scoped))
        second, second_search = _registry(
            backends=CapabilityBackends(kv_store_factory=backend.scoped)
        )
        await _find(first, "s1", "file a ticket in jira")
        assert await _call(second, second_search, "s1", CREATE) == Ok("ran for s1")
        missing = await _call(second, second_search, "s2", CREATE)
        assert isinstance(missing, Err)
    finally:
        await backend.aclose()


async def test_a_provider_answer_only_marks_deferred_tools_of_the_registry() -> None:
    _, search = _registry()
    kept = await search.mark_found(
        "s1", [CREATE, "always_there", "not_a_tool", CREATE, "tool_search"]
    )
    assert kept == [CREATE]
    snapshot = await search.snapshot(ProviderContext(session_id="s1"))
    assert CREATE in snapshot
    assert "not_a_tool" not in snapshot


async def test_a_found_tool_that_is_unregistered_is_no_longer_offered() -> None:
    registry, search = _registry()
    await _find(registry, "s1", "file a ticket in jira")
    registry.unregister(CREATE)
    snapshot = await search.snapshot(ProviderContext(session_id="s1"))
    assert CREATE not in snapshot


async def test_a_tool_registered_later_is_searchable() -> None:
    registry, _ = _registry()
    assert (await _find(registry, "s1", "kanban board archive"))["tools"] == []
    registry.register(make("archive_board", "Archive a kanban board."))
    names = [t["name"] for t in (await _find(registry, "s1", "kanban board archive"))["tools"]]
    assert names == ["archive_board"]


async def test_regex_mode_and_a_bad_pattern() -> None:
    registry, _ = _registry()
    ctx = ToolContext(session_id="s1")
    outcome = await registry.execute("tool_search", {"query": "SLACK|jira", "mode": "regex"}, ctx)
    assert isinstance(outcome.result, Ok)
    assert outcome.result.structured is not None
    assert {t["name"] for t in outcome.result.structured["tools"]} == {
        "mcp__slack__slack_post_message",
        CREATE,
    }
    bad = await registry.execute("tool_search", {"query": "(?<=a)b", "mode": "regex"}, ctx)
    assert isinstance(bad.result, Err)
    assert bad.result.code == ErrorCode.INPUT_INVALID
    assert bad.result.field == "query"


async def test_nothing_found_says_so_and_marks_nothing() -> None:
    registry, search = _registry()
    outcome = await registry.execute(
        "tool_search", {"query": "book a flight to Lisbon"}, ToolContext(session_id="s1")
    )
    assert isinstance(outcome.result, Ok)
    assert outcome.result.structured == {"query": "book a flight to Lisbon", "tools": []}
    assert "No tool matches" in outcome.result.value
    assert await search.found.get("s1") == frozenset()
