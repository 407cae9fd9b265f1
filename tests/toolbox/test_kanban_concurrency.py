"""Many agents on one board: two registries, each with its own backend object on the same
SQLite file, Redis server or PostgreSQL table, creating and changing cards at once. Nothing is
lost: every create gets its own card, every change lands, none overwrites another's field."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from kv_stores import STORE_KINDS, open_store, store_registry
from toolbox_helpers import ok_value, run

from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Ok
from toolwire.toolbox.kanban import kanban_tools

pytestmark = pytest.mark.anyio

TEAM = "blue"


def agent(index: int) -> ToolContext:
    return ToolContext(session_id=f"s{index}", personality_id=f"agent{index}", team_id=TEAM)


@pytest.fixture(params=STORE_KINDS)
async def registries(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[list[ToolRegistry]]:
    async with (
        open_store(request.param, tmp_path) as opener,
        opener() as first,
        opener() as second,
    ):
        yield [store_registry(backend, kanban_tools()) for backend in (first, second)]


async def cards(registry: ToolRegistry, **filters: object) -> list[dict[str, object]]:
    result = await run(registry, agent(0), "kanban_list", limit=500, **filters)
    assert isinstance(result, Ok), result
    assert result.structured is not None
    return list(result.structured["cards"])


async def test_concurrent_creates_get_distinct_cards(registries: list[ToolRegistry]) -> None:
    async def create(index: int) -> None:
        ok_value(await run(registries[index % 2], agent(index), "kanban_create", title=f"T{index}"))

    async with anyio.create_task_group() as group:
        for index in range(60):
            group.start_soon(create, index)
    found = await cards(registries[1])
    assert sorted(str(card["title"]) for card in found) == sorted(f"T{i}" for i in range(60))
    assert sorted(str(card["id"]) for card in found) == sorted(f"card-{i}" for i in range(1, 61))


async def test_concurrent_moves_of_every_card_all_land(registries: list[ToolRegistry]) -> None:
    for index in range(30):
        await run(registries[0], agent(0), "kanban_create", title=f"T{index}")

    async def move(number: int) -> None:
        card_id = f"card-{number}"
        target = "done" if number % 2 else "review"
        ok_value(
            await run(
                registries[number % 2], agent(number), "kanban_move", card_id=card_id, column=target
            )
        )

    async with anyio.create_task_group() as group:
        for number in range(1, 31):
            group.start_soon(move, number)
    assert len(await cards(registries[0], column="done")) == 15
    assert len(await cards(registries[1], column="review")) == 15


async def test_racing_changes_to_one_card_keep_every_field(registries: list[ToolRegistry]) -> None:
    await run(registries[0], agent(0), "kanban_create", title="Hot card")
    columns = ["ready", "running", "review", "blocked"]

    async def change(index: int) -> None:
        registry, ctx = registries[index % 2], agent(index)
        if index == 0:
            ok_value(await run(registry, ctx, "kanban_update", card_id="card-1", title="Renamed"))
        elif index == 1:
            ok_value(await run(registry, ctx, "kanban_update", card_id="card-1", assignee="ana"))
        elif index == 2:
            ok_value(await run(registry, ctx, "kanban_update", card_id="card-1", labels=["hot"]))
        else:
            ok_value(
                await run(registry, ctx, "kanban_move", card_id="card-1", column=columns[index % 4])
            )

    async with anyio.create_task_group() as group:
        for index in range(20):
            group.start_soon(change, index)
    [card] = await cards(registries[1], text="renamed")
    assert (card["title"], card["assignee"], card["labels"]) == ("Renamed", "ana", ["hot"])
    assert card["rev"] == 21  # created at 1, then 20 changes: none was lost
    text = ok_value(await run(registries[0], agent(0), "kanban_get", card_id="card-1"))
    assert text.count("→") == 5  # the card shows its last five moves
