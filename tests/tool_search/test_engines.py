"""The engines behind `ToolIndex`: BM25 (default), SQLite FTS5, regex."""

from __future__ import annotations

import pytest
from ts_helpers import catalogue

from toolwire.tool_search import BM25Index, FTS5Index, RegexIndex, ToolIndex, document_of


def _built(index: ToolIndex) -> ToolIndex:
    index.build([document_of(tool) for tool in catalogue()])
    return index


@pytest.mark.parametrize(("engine", "within"), [(BM25Index, 1), (FTS5Index, 3)])
def test_words_find_the_tool_in_other_wording(engine: type[ToolIndex], within: int) -> None:
    index = _built(engine())
    for query, name in [
        ("file a ticket in jira", "mcp__jira__jira_create_issue"),
        ("open a GitHub issue", "mcp__github__create_issue"),
        ("tell the slack channel", "mcp__slack__slack_post_message"),
        ("reimburse a payment", "mcp__stripe__create_refund"),
    ]:
        assert name in [hit.name for hit in index.search(query, 5)][:within], query


def test_parameter_descriptions_are_searched() -> None:
    hits = _built(BM25Index(min_score=0.0)).search("weather", 5)
    assert [hit.name for hit in hits] == ["mcp__maps__maps_elevation"]


def test_a_request_no_tool_answers_finds_nothing() -> None:
    assert _built(BM25Index()).search("book a flight to Lisbon", 5) == []
    assert _built(BM25Index()).search("the of and", 5) == []


def test_limit_caps_the_answer_best_first() -> None:
    hits = _built(BM25Index(min_score=0.0)).search("issue", 2)
    assert len(hits) == 2
    assert hits[0].score >= hits[1].score


def test_rebuilding_replaces_the_documents() -> None:
    index = _built(BM25Index())
    index.build([document_of(catalogue()[3])])
    assert index.search("jira", 5) == []
    assert index.search("slack", 5)[0].name == "mcp__slack__slack_post_message"
    fts = _built(FTS5Index())
    fts.build([document_of(catalogue()[3])])
    assert fts.search("jira", 5) == []
    assert fts.search("slack", 5)[0].name == "mcp__slack__slack_post_message"


def test_regex_is_case_insensitive_and_ranks_names_first() -> None:
    hits = _built(RegexIndex()).search("ISSUE", 10)
    names = [hit.name for hit in hits]
    assert set(names) == {
        "mcp__github__create_issue",
        "mcp__github__list_issues",
        "mcp__jira__jira_create_issue",
    }
    assert all(hit.score >= 3 for hit in hits)  # each matched by its name
    assert [h.name for h in _built(RegexIndex()).search("weather", 5)] == [
        "mcp__maps__maps_elevation"
    ]


@pytest.mark.parametrize("pattern", ["(?=issue)i", "(a)\\1", "[unclosed", "x" * 201])
def test_regex_refuses_what_it_cannot_run_safely(pattern: str) -> None:
    with pytest.raises(ValueError):
        _built(RegexIndex()).search(pattern, 5)
