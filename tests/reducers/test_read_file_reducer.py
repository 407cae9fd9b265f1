"""The read_file reducer: first 200 lines of an unranged read, ranged reads untouched."""

from __future__ import annotations

from typing import Any

from toolwire.reducers import ReadFileReducer, ReducerContext
from toolwire.results import Ok, ToolResult, err, ok

REDUCER = ReadFileReducer()


def read(value: str, **args: Any) -> ToolResult:
    return REDUCER.reduce(ok(value), ReducerContext(args={"path": "/repo/f.py", **args}))


def file_output(lines: int, path: str = "/repo/f.py") -> str:
    body = "\n".join(f"line {i}" for i in range(1, lines + 1))
    return f"# {path} ({lines} lines)\n{body}\n"


def value_of(result: ToolResult) -> str:
    assert isinstance(result, Ok)
    return result.value


def test_file_of_200_lines_with_header_is_not_truncated() -> None:
    original = ok(file_output(200))
    assert REDUCER.reduce(original, ReducerContext(args={"path": "/repo/f.py"})) is original


def test_file_of_201_lines_is_cut_to_200() -> None:
    out = value_of(read(file_output(201))).split("\n")
    assert out[0] == "# /repo/f.py (201 lines)"
    assert out[2:] == [f"line {i}" for i in range(1, 201)]


def test_400_line_file_keeps_header_hint_and_first_200_lines() -> None:
    out = value_of(read(file_output(400))).split("\n")
    assert len(out) == 202
    assert out[-1] == "line 200"


def test_hint_names_the_real_range_arguments() -> None:
    hint = value_of(read(file_output(400))).split("\n")[1]
    assert hint == (
        "[Showing lines 1-200 of 400. Call read_file with start_line/end_line for more, "
        "e.g. start_line=201, end_line=400.]"
    )
    assert "lineStart" not in hint
    assert "lineEnd" not in hint


def test_ranged_read_by_start_line_is_untouched() -> None:
    original = ok(file_output(300))
    ctx = ReducerContext(args={"path": "/repo/f.py", "start_line": 1, "end_line": 300})
    assert REDUCER.reduce(original, ctx) is original


def test_ranged_read_by_end_line_alone_is_untouched() -> None:
    original = ok(file_output(300))
    assert REDUCER.reduce(original, ReducerContext(args={"end_line": 300})) is original


def test_ranged_header_is_untouched_even_without_range_args() -> None:
    body = "\n".join(f"line {i}" for i in range(1, 302))
    original = ok(f"# /repo/f.py (lines 1-301 of 900)\n{body}")
    assert REDUCER.reduce(original, ReducerContext(args={})) is original


def test_none_range_arguments_count_as_unranged() -> None:
    out = value_of(read(file_output(250), start_line=None, end_line=None))
    assert "[Showing lines 1-200 of 250." in out


def test_error_is_untouched() -> None:
    result = err("Cannot read /repo/f.py: file not found")
    assert REDUCER.reduce(result, ReducerContext(args={})) is result


def test_output_without_header_counts_every_line() -> None:
    body = "\n".join(f"row {i}" for i in range(300))
    out = value_of(read(body)).split("\n")
    assert out[0].startswith("[Showing lines 1-200 of 300.")
    assert out[1:] == [f"row {i}" for i in range(200)]


def test_hint_suggests_a_range_inside_a_short_tail() -> None:
    hint = value_of(read(file_output(250))).split("\n")[1]
    assert hint.endswith("e.g. start_line=201, end_line=250.]")
