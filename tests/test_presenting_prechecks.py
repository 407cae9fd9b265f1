"""The presenter's shortcuts (no scan when a result cannot hold a sentinel look-alike, no cut
when it fits the cap, each tool name's frame computed once) give what the full steps give."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolwire.presenting import _FRAME_NAME, _SENTINEL, _cap, _frame_name, defuse_sentinels

PIECES = st.sampled_from(["=", "==", "===", " ", "\n", "TOOL_RESULT_", "tool_result_", "START"])
TEXT = st.lists(PIECES | st.sampled_from(["END", "x", "é"]), max_size=12).map("".join)


@given(TEXT)
def test_defusing_matches_the_full_substitution(text: str) -> None:
    full = _SENTINEL.sub(lambda sentinel: "=\u200b" + sentinel.group(1), text)
    assert defuse_sentinels(text) == full


@given(st.text(max_size=40))
def test_frame_names_match_the_scan(name: str) -> None:
    assert _frame_name(name) == _FRAME_NAME.sub("_", name)


@given(st.text(max_size=60), st.integers(min_value=0, max_value=80))
def test_a_result_within_the_cap_is_kept_whole(text: str, limit: int) -> None:
    capped = _cap(text, limit)
    if len(text) <= limit:
        assert capped == text
    else:
        assert "truncated" in capped
