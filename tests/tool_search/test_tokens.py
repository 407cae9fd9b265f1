"""Identifier splitting and the light stemmer the engines share."""

from __future__ import annotations

import pytest

from toolwire.tool_search._tokens import identifier_words, stem, tokens
from toolwire.tool_search.synonyms import EXPANSION_WEIGHT, expand


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("create_issue", ["create", "issue"]),
        ("createPullRequest", ["create", "pull", "request"]),
        ("mcp__github__search_code", ["mcp", "github", "search", "code"]),
        ("API-post-search", ["api", "post", "search"]),
        ("HTTPRequest2", ["http", "request", "2"]),
        ("parseJSONBody", ["parse", "json", "body"]),
        ("read.file/v2", ["read", "file", "v", "2"]),
    ],
)
def test_identifiers_split_at_separators_and_case_changes(text: str, words: list[str]) -> None:
    assert identifier_words(text) == words


def test_inflections_fold_onto_one_term() -> None:
    assert len({stem(w) for w in ("create", "creates", "created", "creating")}) == 1
    assert stem("issues") == stem("issue")
    assert stem("directories") == stem("directory")


def test_stop_words_are_dropped() -> None:
    assert tokens("get the list of the issues") == [stem("list"), stem("issues")]


def test_a_query_word_brings_its_synonyms_at_a_lower_weight() -> None:
    weights = expand("open a ticket")
    assert weights[stem("ticket")] == 1.0
    assert weights[stem("issue")] == EXPANSION_WEIGHT
    assert weights[stem("create")] == EXPANSION_WEIGHT
    assert expand("open a ticket", synonyms=False) == {stem("open"): 1.0, stem("ticket"): 1.0}
