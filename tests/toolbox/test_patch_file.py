"""patch_file: one match, literal replacement, ambiguity, already-applied, no-match diagnosis."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolbox_helpers import error_of, ok_value, run

from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode
from toolwire.toolbox._diagnosis import explain_no_match
from toolwire.toolbox._patching import find_all, is_already_applied

pytestmark = pytest.mark.anyio


async def test_replaces_the_single_match(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "m.py").write_text("def f():\n    return 1\n")
    value = ok_value(
        await run(
            registry, ctx, "patch_file", path="m.py", old_text="return 1", new_text="return 2"
        )
    )
    assert value == f"Patched {work / 'm.py'} at line 2."
    assert (work / "m.py").read_text() == "def f():\n    return 2\n"


async def test_replacement_is_literal_without_dollar_or_backslash_expansion(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "m.txt").write_text("price: X\n")
    new = r"$& $1 $$ \1 \g<0>"
    ok_value(await run(registry, ctx, "patch_file", path="m.txt", old_text="X", new_text=new))
    assert (work / "m.txt").read_text() == f"price: {new}\n"


async def test_several_matches_list_their_line_numbers_and_change_nothing(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    text = "x = 1\ny = 2\nx = 1\n\nx = 1\n"
    (work / "m.py").write_text(text)
    error = error_of(
        await run(registry, ctx, "patch_file", path="m.py", old_text="x = 1", new_text="x = 3")
    )
    assert "matches 3 places" in error.error
    assert "(lines 1, 3, 5)" in error.error
    assert "  line 3: x = 1" in error.error
    assert (work / "m.py").read_text() == text


async def test_already_applied_patch_is_a_success_without_a_write(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "m.py").write_text("value = 2\n")
    before = (work / "m.py").stat().st_mtime_ns
    value = ok_value(
        await run(
            registry, ctx, "patch_file", path="m.py", old_text="value = 1", new_text="value = 2"
        )
    )
    assert value.startswith("No change: the patch is already applied")
    assert (work / "m.py").stat().st_mtime_ns == before


async def test_an_insertion_that_keeps_old_text_is_not_applied_twice(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "m.py").write_text("import os\n")
    args = {"path": "m.py", "old_text": "import os\n", "new_text": "import os\nimport re\n"}
    ok_value(await run(registry, ctx, "patch_file", **args))
    value = ok_value(await run(registry, ctx, "patch_file", **args))
    assert value.startswith("No change")
    assert (work / "m.py").read_text() == "import os\nimport re\n"


async def test_old_text_still_present_elsewhere_is_not_already_applied(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "m.py").write_text("a = 1\na = 2\n")
    ok_value(
        await run(registry, ctx, "patch_file", path="m.py", old_text="a = 1", new_text="a = 2")
    )
    assert (work / "m.py").read_text() == "a = 2\na = 2\n"


async def test_case_difference_is_diagnosed(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "m.py").write_text("x = 1\nPrint('Hello')\n")
    error = error_of(
        await run(registry, ctx, "patch_file", path="m.py", old_text="print('hello')", new_text="")
    )
    assert error.code is ErrorCode.EXECUTION_FAILED
    assert "matches line 2 if case is ignored" in error.error


async def test_tabs_versus_spaces_are_diagnosed_with_visible_whitespace(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "m.py").write_text("def f():\n\treturn 1\n")
    error = error_of(
        await run(
            registry, ctx, "patch_file", path="m.py",
            old_text="def f():\n    return 1", new_text="def f():\n    return 2",
        )
    )  # fmt: skip
    assert "matches line 1 if whitespace is ignored (tabs vs spaces" in error.error
    assert "  ····return·1¶" in error.error
    assert "  →return·1¶" in error.error


def test_trailing_whitespace_and_crlf_are_named() -> None:
    message = explain_no_match("/f", "value = 1  \r\nnext\r\n", "value = 1\nnext")
    assert "trailing whitespace" in message
    assert "CRLF" in message


def test_indentation_width_is_named() -> None:
    message = explain_no_match("/f", "if x:\n        go()\n", "if x:\n    go()")
    assert "indentation width" in message


def test_nearest_lines_are_offered_when_nothing_else_matches() -> None:
    text = "def compute_total(items):\n    return sum(items)\n"
    message = explain_no_match("/f", text, "def compute_totals(items, tax):")
    assert "closest lines" in message
    assert "line 1" in message


def test_hopeless_text_says_to_read_the_file() -> None:
    message = explain_no_match("/f", "abc\n", "completely different")
    assert message == "old_text not found in /f. Use read_file to see the exact current text."


async def test_empty_old_text_is_an_input_error(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "m.py").write_text("x")
    error = error_of(await run(registry, ctx, "patch_file", path="m.py", old_text="", new_text="y"))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.field == "old_text"


async def test_missing_file_is_an_execution_error(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    error = error_of(
        await run(registry, ctx, "patch_file", path="no.py", old_text="a", new_text="b")
    )
    assert error.error == f"Cannot patch {work / 'no.py'}: file not found"


@given(st.text(), st.text(min_size=1))
def test_find_all_counts_like_str_count(text: str, needle: str) -> None:
    found = find_all(text, needle)
    assert len(found) == text.count(needle)
    assert all(text.startswith(needle, at) for at in found)


@given(st.text(alphabet="ab\n", max_size=30), st.text(alphabet="ab\n", min_size=1, max_size=4),
       st.text(alphabet="abc\n", max_size=6))  # fmt: skip
def test_already_applied_never_claims_a_file_without_new_text(
    text: str, old: str, new: str
) -> None:
    if is_already_applied(text, old, new, find_all(text, old)):
        assert new
        assert new in text
