"""``todo_write`` / ``todo_read`` (toolset ``todo``): the session's task list.

The model keeps a short plan and ticks it off. ``todo_write`` replaces the whole list at once
(one key-value ``set``: readers see the old list or the new one, never a mix); at most one item
may be ``in_progress``. Both answer the list compactly::

    Todos (3: 1 completed, 1 in progress, 1 pending)
    [x] 1 Write the tests
    [>] 2 Fix the parser
    [ ] 3 Update the docs

The list lives in the session's key-value scope (``session:<id>``, through
``shared_storage(group="todo")`` so both tools share it even on a store that isolates tools;
kept 30 days after its last write): every agent serving the session sees the same one.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from toolwire.capabilities.seams import KeyValueStore
from toolwire.context import ToolContext
from toolwire.errors import StoreError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox._common import shared_state_tool
from toolwire.toolbox.memory._scopes import shared_store
from toolwire.tools import Tool

__all__ = [
    "KEEP_S",
    "MAX_TODOS",
    "TODO_KEY",
    "TodoItem",
    "render_todos",
    "todo_read",
    "todo_tools",
    "todo_write",
]

TODO_KEY = "toolwire.todo"
"""The session-scope key holding the list."""
MAX_TODOS = 100
"""The longest list ``todo_write`` accepts."""
KEEP_S = 30 * 24 * 3600.0
"""How long a list lives after its last write."""
_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}

Status = Literal["pending", "in_progress", "completed"]


class TodoItem(TypedDict):
    """One task: what to do and where it stands; ``id`` is optional (its position otherwise)."""

    content: Annotated[str, Field(min_length=1, max_length=500)]
    status: Status
    id: NotRequired[Annotated[str, Field(min_length=1, max_length=40)]]


def render_todos(items: list[dict[str, str]]) -> str:
    """The list as a header with counts and one marked line per item."""
    if not items:
        return "No todos for this session."
    counts = {status: sum(item["status"] == status for item in items) for status in _MARKS}
    parts = [
        f"{counts['completed']} completed",
        f"{counts['in_progress']} in progress",
        f"{counts['pending']} pending",
    ]
    lines = [f"Todos ({len(items)}: {', '.join(parts)})"]
    lines.extend(f"{_MARKS[item['status']]} {item['id']} {item['content']}" for item in items)
    return "\n".join(lines)


def _normalised(items: list[TodoItem]) -> list[dict[str, str]] | Err:
    out = []
    for position, item in enumerate(items, 1):
        item_id = " ".join(item.get("id", str(position)).split()) or str(position)
        content = " ".join(item["content"].split())
        out.append({"id": item_id, "content": content, "status": item["status"]})
    ids = [item["id"] for item in out]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        return Err(
            f"todo ids must be unique; repeated: {', '.join(duplicates)}",
            ErrorCode.INPUT_INVALID,
            field="items",
        )
    active = [item["id"] for item in out if item["status"] == "in_progress"]
    if len(active) > 1:
        return Err(
            f"at most one todo may be in_progress; {', '.join(active)} are. Finish one "
            "(completed) or set the others back to pending",
            ErrorCode.INPUT_INVALID,
            field="items",
        )
    return out


def _parse(text: str | None) -> list[dict[str, str]]:
    if text is None:
        return []
    try:
        items = json.loads(text)
    except ValueError:
        return []
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _store(ctx: ToolContext, tool_name: str) -> KeyValueStore | Err:
    return shared_store(ctx, tool_name, f"session:{ctx.session_id}")


@shared_state_tool("todo", "Write the todo list", read_only=False, max_result_chars=8_000)
async def todo_write(
    ctx: ToolContext, items: Annotated[list[TodoItem], Field(max_length=MAX_TODOS)]
) -> ToolResult:
    """Replace this session's todo list with items (send the whole list every time).

    Use it to plan multi-step work and track progress: mark a task in_progress before
    starting it (only one at a time) and completed as soon as it is done.

    Args:
        items: The whole list, in order; each {content, status, id?}, status one of
            pending, in_progress, completed.
    """
    if isinstance(store := _store(ctx, "todo_write"), Err):
        return store
    normalised = _normalised(items)
    if isinstance(normalised, Err):
        return normalised
    try:
        await store.set(TODO_KEY, json.dumps(normalised), ttl_seconds=KEEP_S)
    except StoreError as exc:
        return Err(f"todo_write: the store failed: {exc}", cause="StoreError")
    return Ok(render_todos(normalised), structured={"items": normalised})


@shared_state_tool("todo", "Read the todo list", read_only=True, max_result_chars=8_000)
async def todo_read(ctx: ToolContext) -> ToolResult:
    """Show this session's todo list with each item's status."""
    if isinstance(store := _store(ctx, "todo_read"), Err):
        return store
    try:
        items = _parse(await store.get(TODO_KEY))
    except StoreError as exc:
        return Err(f"todo_read: the store failed: {exc}", cause="StoreError")
    return Ok(render_todos(items), structured={"items": items})


def todo_tools() -> list[Tool]:
    """``todo_write`` and ``todo_read``."""
    return [todo_write, todo_read]
