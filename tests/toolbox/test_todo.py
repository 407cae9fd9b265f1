"""todo_write / todo_read through a real registry, on SQLite, Redis and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from kv_stores import STORE_KINDS, open_store, store_registry
from toolbox_helpers import error_of, ok_value, run

from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.toolbox._todo import MAX_TODOS, todo_tools

pytestmark = pytest.mark.anyio

S1 = ToolContext(session_id="s1")
PLAN = [
    {"content": "Write the tests", "status": "completed"},
    {"content": "Fix the parser", "status": "in_progress"},
    {"content": "Update the docs", "status": "pending"},
]


@pytest.fixture(params=STORE_KINDS)
async def registry(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ToolRegistry]:
    async with open_store(request.param, tmp_path) as opener, opener() as backend:
        yield store_registry(backend, todo_tools())


async def test_write_echoes_the_list_compactly(registry: ToolRegistry) -> None:
    text = ok_value(await run(registry, S1, "todo_write", items=PLAN))
    assert text == (
        "Todos (3: 1 completed, 1 in progress, 1 pending)\n"
        "[x] 1 Write the tests\n[>] 2 Fix the parser\n[ ] 3 Update the docs"
    )


async def test_read_answers_what_was_written(registry: ToolRegistry) -> None:
    await run(registry, S1, "todo_write", items=PLAN)
    result = await run(registry, S1, "todo_read")
    assert ok_value(result).splitlines()[2] == "[>] 2 Fix the parser"
    assert isinstance(result, Ok)
    assert result.structured == {
        "items": [
            {"id": "1", "content": "Write the tests", "status": "completed"},
            {"id": "2", "content": "Fix the parser", "status": "in_progress"},
            {"id": "3", "content": "Update the docs", "status": "pending"},
        ]
    }


async def test_a_write_replaces_the_whole_list(registry: ToolRegistry) -> None:
    await run(registry, S1, "todo_write", items=PLAN)
    await run(
        registry, S1, "todo_write", items=[{"id": "a", "content": "only", "status": "pending"}]
    )
    assert (
        ok_value(await run(registry, S1, "todo_read"))
        == "Todos (1: 0 completed, 0 in progress, 1 pending)\n[ ] a only"
    )
    ok_value(await run(registry, S1, "todo_write", items=[]))
    assert ok_value(await run(registry, S1, "todo_read")) == "No todos for this session."


async def test_two_in_progress_items_are_refused_and_nothing_changes(
    registry: ToolRegistry,
) -> None:
    await run(registry, S1, "todo_write", items=PLAN)
    two = [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]
    refused = error_of(await run(registry, S1, "todo_write", items=two))
    assert (refused.code, refused.field) == (ErrorCode.INPUT_INVALID, "items")
    assert "at most one todo may be in_progress; 1, 2 are" in refused.error
    assert "[>] 2 Fix the parser" in ok_value(await run(registry, S1, "todo_read"))


@pytest.mark.parametrize(
    "items",
    [
        [{"content": "x", "status": "done"}],
        [{"content": "", "status": "pending"}],
        [{"content": "x" * 501, "status": "pending"}],
        [{"status": "pending"}],
        [{"content": "x", "status": "pending"}] * (MAX_TODOS + 1),
        [
            {"id": "a", "content": "x", "status": "pending"},
            {"id": "a", "content": "y", "status": "pending"},
        ],
    ],
    ids=["status", "empty", "long", "no-content", "too-many", "duplicate-id"],
)
async def test_malformed_lists_are_input_invalid(
    registry: ToolRegistry, items: list[object]
) -> None:
    assert (
        error_of(await run(registry, S1, "todo_write", items=items)).code == ErrorCode.INPUT_INVALID
    )


async def test_sessions_have_their_own_lists(registry: ToolRegistry) -> None:
    await run(registry, S1, "todo_write", items=PLAN)
    other = ToolContext(session_id="s2", personality_id="same")
    assert ok_value(await run(registry, other, "todo_read")) == "No todos for this session."


async def test_concurrent_writes_leave_one_whole_list(registry: ToolRegistry) -> None:
    lists = [
        [{"content": f"w{n} item {i}", "status": "pending"} for i in range(5)] for n in range(8)
    ]
    async with anyio.create_task_group() as group:
        for items in lists:
            group.start_soon(_write, registry, items)
    result = await run(registry, S1, "todo_read")
    assert isinstance(result, Ok)
    assert result.structured is not None
    contents = [item["content"] for item in result.structured["items"]]
    assert contents in [[item["content"] for item in items] for items in lists]


async def _write(registry: ToolRegistry, items: list[dict[str, str]]) -> None:
    ok_value(await run(registry, S1, "todo_write", items=items))


async def test_without_a_store_it_is_not_available() -> None:
    registry = ToolRegistry()
    registry.register_all(todo_tools())
    assert error_of(await run(registry, S1, "todo_read")).code == ErrorCode.NOT_AVAILABLE


async def test_both_tools_share_the_list_on_a_store_that_isolates_tools(tmp_path: Path) -> None:
    from toolwire.stores import SqliteKeyValueBackend

    async with SqliteKeyValueBackend(tmp_path / "iso.db", isolate_tools=True) as isolated:
        registry = store_registry(isolated, todo_tools())
        await run(registry, S1, "todo_write", items=PLAN)
        assert "[>] 2 Fix the parser" in ok_value(await run(registry, S1, "todo_read"))
