"""The kanban tools through a real registry, on SQLite, Redis and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from kv_stores import STORE_KINDS, open_store, store_registry
from toolbox_helpers import error_of, ok_value, run

from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.stores import KeyValueBackend
from toolwire.toolbox.kanban import kanban_tools

pytestmark = pytest.mark.anyio

ME = ToolContext(session_id="s1", personality_id="lead")


@pytest.fixture(params=STORE_KINDS)
async def open_backend(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], KeyValueBackend]]:
    async with open_store(request.param, tmp_path) as opener:
        yield opener


@pytest.fixture
async def registry(open_backend: Callable[[], KeyValueBackend]) -> AsyncIterator[ToolRegistry]:
    async with open_backend() as backend:
        yield store_registry(backend, kanban_tools(max_cards=30))


async def listed(registry: ToolRegistry, ctx: ToolContext = ME, **filters: object) -> list[dict]:
    result = await run(registry, ctx, "kanban_list", **filters)
    assert isinstance(result, Ok), result
    assert result.structured is not None
    return list(result.structured["cards"])


async def test_create_then_get_shows_the_whole_card(registry: ToolRegistry) -> None:
    created = await run(
        registry,
        ME,
        "kanban_create",
        title="Ship the  CLI",
        body="docs too",
        assignee="ana",
        labels=["CLI", "release", "cli"],
    )
    assert ok_value(created) == "Created card-1 [todo] Ship the CLI (rev 1)"
    text = ok_value(await run(registry, ME, "kanban_get", card_id="card-1"))
    lines = text.splitlines()
    assert lines[0] == "card-1 [todo] Ship the CLI"
    assert lines[1] == "assignee: ana · labels: cli, release · rev 1"
    assert lines[2].startswith("created ")
    assert " by lead · updated " in lines[2]
    assert lines[-1] == "docs too"


async def test_move_and_update_bump_the_rev_and_keep_other_fields(registry: ToolRegistry) -> None:
    await run(registry, ME, "kanban_create", title="Fix bug", assignee="bo")
    moved = await run(registry, ME, "kanban_move", card_id="card-1", column="running")
    assert ok_value(moved) == "Moved card-1 [running] Fix bug (rev 2)"
    updated = await run(registry, ME, "kanban_update", card_id="card-1", title="Fix the bug")
    assert ok_value(updated) == "Updated card-1 [running] Fix the bug (rev 3)"
    text = ok_value(await run(registry, ME, "kanban_get", card_id="card-1"))
    assert "assignee: bo" in text
    assert "lead: todo → running" in text
    ok_value(await run(registry, ME, "kanban_update", card_id="card-1", assignee=""))
    assert "assignee: nobody" in ok_value(await run(registry, ME, "kanban_get", card_id="card-1"))


async def test_a_stale_expected_rev_is_refused(registry: ToolRegistry) -> None:
    await run(registry, ME, "kanban_create", title="T")
    await run(registry, ME, "kanban_move", card_id="card-1", column="ready")
    stale = error_of(
        await run(registry, ME, "kanban_move", card_id="card-1", column="done", expected_rev=1)
    )
    assert (stale.code, stale.conflict_key) == (ErrorCode.STALE_WRITE, "card-1")
    ok_value(
        await run(registry, ME, "kanban_move", card_id="card-1", column="done", expected_rev=2)
    )


@pytest.mark.parametrize("card_id", ["card-9", "card-0", "9", "card-1; DROP", "../card-1"])
async def test_unknown_cards_are_input_invalid(registry: ToolRegistry, card_id: str) -> None:
    await run(registry, ME, "kanban_create", title="T")
    for name, args in [
        ("kanban_get", {}),
        ("kanban_move", {"column": "done"}),
        ("kanban_update", {"title": "x"}),
    ]:
        refused = error_of(await run(registry, ME, name, card_id=card_id, **args))
        assert (refused.code, refused.field) == (ErrorCode.INPUT_INVALID, "card_id")


async def test_bad_arguments_are_input_invalid(registry: ToolRegistry) -> None:
    assert error_of(await run(registry, ME, "kanban_create", title="")).code == "input_invalid"
    assert error_of(await run(registry, ME, "kanban_create", title="x", column="doing")).code == (
        ErrorCode.INPUT_INVALID
    )
    await run(registry, ME, "kanban_create", title="T")
    nothing = error_of(await run(registry, ME, "kanban_update", card_id="card-1"))
    assert "nothing to change" in nothing.error


async def test_list_filters_and_orders_newest_change_first(registry: ToolRegistry) -> None:
    for title, assignee, labels in [
        ("Alpha parser", "ana", ["bug"]),
        ("Beta docs", "bo", []),
        ("Gamma Parser", None, ["bug", "cli"]),
    ]:
        await run(registry, ME, "kanban_create", title=title, assignee=assignee, labels=labels)
    await run(registry, ME, "kanban_move", card_id="card-1", column="running")
    assert [c["id"] for c in await listed(registry)] == ["card-1", "card-3", "card-2"]
    assert [c["id"] for c in await listed(registry, column="running")] == ["card-1"]
    assert [c["id"] for c in await listed(registry, assignee="bo")] == ["card-2"]
    assert [c["id"] for c in await listed(registry, assignee="")] == ["card-3"]
    assert [c["id"] for c in await listed(registry, label="BUG")] == ["card-1", "card-3"]
    assert [c["id"] for c in await listed(registry, text="parser")] == ["card-1", "card-3"]
    assert [c["id"] for c in await listed(registry, limit=1)] == ["card-1"]
    first = (await listed(registry))[0]
    assert set(first) == {"id", "title", "status", "assignee", "labels", "updated_at", "rev"}


async def test_cards_changed_within_one_millisecond_list_in_the_order_they_changed(
    registry: ToolRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fast store does a create and a move within one millisecond, the resolution of
    # updated_at: the later change must still list first (it used to fall back to the number).
    import toolwire.toolbox.kanban._board as board_module
    import toolwire.toolbox.kanban._cards as cards_module

    frozen = "2026-11-28T18:00:00.000+00:00"
    monkeypatch.setattr(cards_module, "now_iso", lambda: frozen)
    monkeypatch.setattr(board_module, "now_iso", lambda: frozen)
    for title in ("First", "Second", "Third"):
        await run(registry, ME, "kanban_create", title=title)
    await run(registry, ME, "kanban_move", card_id="card-1", column="running")
    assert [c["id"] for c in await listed(registry)] == ["card-1", "card-3", "card-2"]


async def test_archived_cards_are_listed_only_on_request(registry: ToolRegistry) -> None:
    await run(registry, ME, "kanban_create", title="Old")
    await run(registry, ME, "kanban_move", card_id="card-1", column="archived")
    assert await listed(registry) == []
    assert [c["id"] for c in await listed(registry, column="archived")] == ["card-1"]


async def test_long_lists_go_through_the_kanban_reducer(registry: ToolRegistry) -> None:
    for index in range(12):
        await run(registry, ME, "kanban_create", title=f"Task {index}")
    for index in (1, 2):
        await run(registry, ME, "kanban_move", card_id=f"card-{index}", column="done")
    text = ok_value(await run(registry, ME, "kanban_list"))
    lines = text.splitlines()
    assert lines[0] == "Counts by status: done=2, todo=10."  # first seen: newest change first
    assert lines[1] == "Top 5 open by updated_at (newest first):"
    assert lines[2].startswith("- card-12 [todo] Task 11 (updated ")


async def test_short_lists_are_json(registry: ToolRegistry) -> None:
    await run(registry, ME, "kanban_create", title="Only")
    cards = json.loads(ok_value(await run(registry, ME, "kanban_list")))
    assert [card["title"] for card in cards] == ["Only"]


async def test_a_team_shares_one_board_and_personalities_do_not(registry: ToolRegistry) -> None:
    await run(registry, ME, "kanban_create", title="Lead's own")
    assert await listed(registry, ToolContext(session_id="s2", personality_id="dev")) == []
    lead = ToolContext(session_id="s3", personality_id="lead", team_id="blue")
    dev = ToolContext(session_id="s4", personality_id="dev", team_id="blue")
    await run(registry, lead, "kanban_create", title="Team task", assignee="dev")
    assert [c["title"] for c in await listed(registry, dev)] == ["Team task"]
    ok_value(await run(registry, dev, "kanban_move", card_id="card-1", column="running"))
    assert "dev: todo → running" in ok_value(
        await run(registry, lead, "kanban_get", card_id="card-1")
    )


async def test_a_full_board_refuses_new_cards(registry: ToolRegistry) -> None:
    for index in range(30):
        ok_value(await run(registry, ME, "kanban_create", title=f"T{index}"))
    full = error_of(await run(registry, ME, "kanban_create", title="one more"))
    assert "holds 30 cards" in full.error


async def test_cards_are_untrusted_output() -> None:
    tools = {t.name: t for t in kanban_tools()}
    assert tools["kanban_get"].output_is_untrusted
    assert tools["kanban_list"].output_is_untrusted
    assert not tools["kanban_create"].output_is_untrusted
