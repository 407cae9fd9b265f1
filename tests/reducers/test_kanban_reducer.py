"""The kanban_list reducer: counts by status and the top 5 open, really sorted by updated_at."""

from __future__ import annotations

import json
from typing import Any

from toolwire.reducers import KanbanListReducer, ReducerContext
from toolwire.results import Ok, ToolResult, err, ok

REDUCER = KanbanListReducer()
CTX = ReducerContext(args={})


def item(i: int, status: str = "todo", updated_at: Any = None) -> dict[str, Any]:
    return {
        "id": f"t{i}",
        "title": f"Task {i}",
        "status": status,
        "updated_at": updated_at
        if updated_at is not None
        else f"2026-10-{i % 28 + 1:02d}T08:00:00Z",
    }


def reduce(items: list[Any]) -> ToolResult:
    return REDUCER.reduce(ok(json.dumps(items)), CTX)


def lines_of(result: ToolResult) -> list[str]:
    assert isinstance(result, Ok)
    return result.value.split("\n")


def test_ten_items_are_untouched() -> None:
    original = ok(json.dumps([item(i) for i in range(10)]))
    assert REDUCER.reduce(original, CTX) is original


def test_eleven_items_become_a_summary() -> None:
    out = lines_of(reduce([item(i) for i in range(11)]))
    assert out[0] == "Counts by status: todo=11."
    assert out[1] == "Top 5 open by updated_at (newest first):"
    assert len(out) == 7


def test_counts_keep_first_seen_order_and_name_missing_status_unknown() -> None:
    items = [item(i, status) for i, status in enumerate(["done", "todo", "done", "blocked"] * 3)]
    items.append({"id": "x", "title": "no status"})
    assert lines_of(reduce(items))[0] == "Counts by status: done=6, todo=3, blocked=3, unknown=1."


def test_top_open_items_are_sorted_by_updated_at_newest_first() -> None:
    stamps = ["2026-01-05T00:00:00Z", "2026-03-01T00:00:00Z", "2025-12-31T23:59:59Z",
              "2026-02-10T12:00:00+00:00", "2026-03-01T00:00:01Z", "2026-01-01T00:00:00Z",
              "2024-06-01T00:00:00Z", "2026-02-28T00:00:00Z", "2025-01-01T00:00:00Z",
              "2026-01-20T00:00:00Z", "2023-01-01T00:00:00Z"]  # fmt: skip
    items = [item(i, "todo", stamp) for i, stamp in enumerate(stamps)]
    top = [line.split(" ")[1] for line in lines_of(reduce(items))[2:]]
    assert top == ["t4", "t1", "t7", "t3", "t9"]


def test_timezones_are_compared_as_instants() -> None:
    items = [item(i, "todo", "2020-01-01T00:00:00Z") for i in range(9)]
    items.append(item(20, "todo", "2026-05-01T10:00:00+02:00"))  # 08:00 UTC
    items.append(item(21, "todo", "2026-05-01T09:00:00Z"))
    top = [line.split(" ")[1] for line in lines_of(reduce(items))[2:4]]
    assert top == ["t21", "t20"]


def test_epoch_numbers_sort_with_iso_strings() -> None:
    items = [item(i, "todo", "2020-01-01T00:00:00Z") for i in range(10)]
    items.append(item(30, "todo", 1_900_000_000))  # 2030
    assert lines_of(reduce(items))[2].startswith("- t30 ")


def test_items_without_a_timestamp_come_last_in_list_order() -> None:
    items = [{"id": f"n{i}", "title": "x", "status": "todo"} for i in range(8)]
    items += [item(90, "todo", "2026-01-01T00:00:00Z"), item(91, "todo", "not a date")]
    items += [item(92, "ready", "2026-02-01T00:00:00Z")]
    top = [line.split(" ")[1] for line in lines_of(reduce(items))[2:]]
    assert top == ["t92", "t90", "n0", "n1", "n2"]


def test_done_and_archived_are_not_open() -> None:
    items = [item(i, "done") for i in range(8)] + [item(8, "archived"), item(9, "blocked")]
    items.append(item(10, "needs_revision"))
    out = lines_of(reduce(items))
    assert out[1] == "Top 2 open by updated_at (newest first):"
    assert {line.split(" ")[1] for line in out[2:]} == {"t9", "t10"}


def test_all_done_reports_top_0_open() -> None:
    out = lines_of(reduce([item(i, "done") for i in range(12)]))
    assert out == ["Counts by status: done=12.", "Top 0 open by updated_at (newest first):"]


def test_rendered_item_shows_id_status_title_and_timestamp() -> None:
    items = [item(i, "done") for i in range(10)]
    items.append({"id": "k1", "title": "Ship it", "status": "running", "updated_at": "2026-01-02"})
    assert lines_of(reduce(items))[2] == "- k1 [running] Ship it (updated 2026-01-02)"


def test_missing_id_and_title_have_placeholders() -> None:
    items = [item(i, "done") for i in range(10)] + [{"status": "todo"}]
    assert lines_of(reduce(items))[2] == "- ? [todo] (no title)"


def test_non_json_non_array_and_errors_are_untouched() -> None:
    for result in (ok("not json"), ok(json.dumps({"items": list(range(20))})), err("boom")):
        assert REDUCER.reduce(result, CTX) is result


def test_non_object_items_are_counted_as_unknown() -> None:
    out = lines_of(reduce([1, "x", None, *[item(i) for i in range(10)]]))
    assert out[0] == "Counts by status: unknown=3, todo=10."
