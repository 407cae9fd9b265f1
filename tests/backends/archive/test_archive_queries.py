"""Any text the model sends is a valid query: it never reaches the database as syntax.

A property test throws arbitrary strings (FTS5 and tsquery operators, quotes, NUL, lone
surrogates, every Unicode category) at both archives; the parser's own properties are checked
without a database.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from archive_targets import archive, open_archive
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolwire.capabilities.kinds.archive import SessionArchive, parse_query
from toolwire.capabilities.kinds.archive._query import MAX_TERMS, STOP_WORDS
from toolwire.capabilities.seams import ArchiveScope

pytestmark = pytest.mark.anyio
__all__ = ["archive", "open_archive"]  # the fixtures every test here runs on

OPS = ArchiveScope(personality="ops")
SYNTAX = st.sampled_from(
    ['"', "'", "*", "^", "(", ")", ":", "-", "+", "NEAR", "NOT", "AND", "OR", "|", "&", "!",
     "<->", "\\", "\x00", "\ud800", "{", "}", "col:", "NEAR(a b, 2)", " ", "é", "_", "%"]
)  # fmt: skip
QUERIES = st.lists(st.one_of(SYNTAX, st.text(max_size=12)), max_size=12).map("".join)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(query=QUERIES)
async def test_no_query_raises(archive: SessionArchive, query: str) -> None:
    await archive.record("s1", "user", "alpha beta gamma délta", datetime.now(UTC),
                         personality="ops")  # fmt: skip
    hits = await archive.search(query, OPS, limit=5)
    assert len(hits) <= 5


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(word=st.from_regex(r"[a-z]{3,12}", fullmatch=True))
async def test_a_recorded_word_is_found(archive: SessionArchive, word: str) -> None:
    assume(word not in STOP_WORDS)  # never searched, on any store
    session = f"s-{word}"
    await archive.record(session, "user", f"zz {word} zz", datetime.now(UTC), personality="ops")
    hits = await archive.search(f'"{word}"', OPS, limit=50)
    assert session in {hit.session for hit in hits}


@given(text=st.text(max_size=300))
def test_rendered_queries_quote_every_term(text: str) -> None:
    query = parse_query(text)
    for rendered in (query.to_fts5(), query.to_websearch()):
        assert rendered.count('"') % 2 == 0
    terms = sum(len(clause) for clause in query.clauses) + len(query.excluded)
    assert terms <= MAX_TERMS
    for clause in query.clauses:
        for phrase in clause:
            assert phrase
            assert all(word.isalnum() for word in phrase)


def test_or_between_terms_makes_alternatives() -> None:
    query = parse_query('deploy OR release "release notes" -draft')
    assert query.clauses == ((("deploy",), ("release",)), (("release", "notes"),))
    assert query.excluded == (("draft",),)
    assert query.to_fts5() == '("deploy" OR "release") AND ("release notes") NOT "draft"'
    assert query.to_websearch() == '"deploy" or "release" "release notes" -"draft"'


def test_a_leading_or_and_lone_operators_are_ignored() -> None:
    assert parse_query("OR deploy OR").clauses == ((("deploy",),),)
    assert parse_query("- -- ---").empty
