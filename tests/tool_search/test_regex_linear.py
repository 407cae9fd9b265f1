"""Regex mode runs the model's pattern in linear time: a pattern that backtracks
exponentially in Python's ``re`` answers at once over an adversarial description."""

from __future__ import annotations

from toolwire.tool_search import RegexIndex, ToolDocument


def test_a_backtracking_pattern_answers_at_once_over_an_adversarial_description() -> None:
    index = RegexIndex()
    index.build(
        [ToolDocument(name="t", description="a" * 60 + "!", parameters=(("p", "a" * 60 + "?"),))]
    )
    # (a|aa)+$ tries every split of the run of a's in a backtracking engine: ~fib(60) steps: hours
    assert index.search("(a|aa)+$", 5) == []
    assert [hit.name for hit in index.search("(a|aa)+!", 5)] == ["t"]
