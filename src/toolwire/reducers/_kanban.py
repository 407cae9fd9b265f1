"""The ``kanban_list`` reducer: more than 10 items become counts by status plus the top 5 open.

``kanban_list`` answers a JSON array of task summaries with ``id``, ``title``, ``status`` and
``updated_at`` (ISO 8601 text or epoch seconds). Over 10 items the reducer answers::

    Counts by status: todo=12, running=3, done=30.
    Top 5 open by updated_at (newest first):
    - task-041 [running] Ship the cli (updated 2026-10-28T19:03:00Z)
    ...

Counts keep first-seen order (``unknown`` when ``status`` is missing). Open means any status but
``done`` and ``archived``. The top 5 really are sorted by ``updated_at``, newest first (the
system we port sorted on ``updatedAt``, a key the list never has); items without a readable
timestamp come last, in list order. Non-JSON output, a non-array and errors are left alone.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from toolwire.reducers._registry import GuardedReducer, ReducerContext
from toolwire.results import Ok, ToolResult

__all__ = ["CLOSED_STATUSES", "KanbanListReducer"]

CLOSED_STATUSES = frozenset({"done", "archived"})
"""Statuses that are not "open"."""
_MAX_ITEMS = 10
_TOP = 5


class KanbanListReducer(GuardedReducer):
    """Summarises long ``kanban_list`` results; see the module docstring."""

    tool_name = "kanban_list"

    def _reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        if not isinstance(result, Ok):
            return result
        try:
            items = json.loads(result.value)
        except ValueError:
            return result
        if not isinstance(items, list) or len(items) <= _MAX_ITEMS:
            return result
        entries = [item if isinstance(item, Mapping) else {} for item in items]
        counts: dict[str, int] = {}
        for entry in entries:
            status = _text(entry.get("status"), "unknown")
            counts[status] = counts.get(status, 0) + 1
        open_items = [
            e for e in entries if _text(e.get("status"), "unknown") not in CLOSED_STATUSES
        ]
        ranked = sorted(enumerate(open_items), key=_rank)
        top = [entry for _, entry in ranked[:_TOP]]
        lines = [
            "Counts by status: " + ", ".join(f"{s}={n}" for s, n in counts.items()) + ".",
            f"Top {len(top)} open by updated_at (newest first):",
            *(_render(entry) for entry in top),
        ]
        return dataclasses.replace(result, value="\n".join(lines))


def _rank(indexed: tuple[int, Mapping[str, Any]]) -> tuple[int, float, int]:
    index, entry = indexed
    stamp = _timestamp(entry.get("updated_at"))
    if stamp is None:
        return (1, 0.0, index)
    return (0, -stamp, index)


def _timestamp(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
        return number if math.isfinite(number) else None
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


def _text(value: object, default: str) -> str:
    if value is None:
        return default
    text = value if isinstance(value, str) else json.dumps(value)
    return " ".join(text.split()) or default


def _render(entry: Mapping[str, Any]) -> str:
    item_id = _text(entry.get("id"), "?")
    title = _text(entry.get("title"), "(no title)")
    status = _text(entry.get("status"), "unknown")
    updated = entry.get("updated_at")
    suffix = f" (updated {_text(updated, '?')})" if updated is not None else ""
    return f"- {item_id} [{status}] {title}{suffix}"
