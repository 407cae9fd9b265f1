"""The contract every session archive passes: SQLite FTS5 and PostgreSQL full-text search."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from archive_targets import archive, open_archive

from toolwire.capabilities.kinds.archive import MAX_HITS, SessionArchive
from toolwire.capabilities.seams import ArchiveScope
from toolwire.errors import StoreError

pytestmark = pytest.mark.anyio
__all__ = ["archive", "open_archive"]  # the fixtures every test here runs on

OPS = ArchiveScope(personality="ops")
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


async def test_a_recorded_message_is_found_with_a_marked_snippet(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "Please deploy the billing service tonight", at(0),
                         personality="ops")  # fmt: skip
    [hit] = await archive.search("billing", OPS)
    assert (hit.session, hit.role, hit.at) == ("s1", "user", at(0))
    assert "**billing**" in hit.snippet.lower()


async def test_words_match_their_stems(archive: SessionArchive) -> None:
    await archive.record("s1", "assistant", "I was deploying the release", at(0), personality="ops")
    assert [h.session for h in await archive.search("deploy", OPS)] == ["s1"]
    assert [h.session for h in await archive.search("DEPLOYS", OPS)] == ["s1"]


async def test_every_word_must_match(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "the database migration failed", at(0), personality="ops")
    await archive.record("s2", "user", "the database is fine", at(1), personality="ops")
    assert [h.session for h in await archive.search("database migration", OPS)] == ["s1"]


async def test_or_joins_alternatives(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "kubernetes cluster upgrade", at(0), personality="ops")
    await archive.record("s2", "user", "terraform cluster plan", at(1), personality="ops")
    await archive.record("s3", "user", "unrelated cluster", at(2), personality="ops")
    found = {h.session for h in await archive.search("kubernetes OR terraform cluster", OPS)}
    assert found == {"s1", "s2"}


async def test_a_quoted_phrase_needs_its_words_in_order(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "rotate the api keys now", at(0), personality="ops")
    await archive.record("s2", "user", "keys for the api rotate", at(1), personality="ops")
    assert [h.session for h in await archive.search('"api keys"', OPS)] == ["s1"]


async def test_a_minus_excludes_a_word(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "invoice paid by card", at(0), personality="ops")
    await archive.record("s2", "user", "invoice paid by transfer", at(1), personality="ops")
    assert [h.session for h in await archive.search("invoice -card", OPS)] == ["s2"]


async def test_the_more_relevant_message_comes_first(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "postgres mentioned once among many other words here",
                         at(5), personality="ops")  # fmt: skip
    await archive.record("s2", "user", "postgres postgres postgres", at(0), personality="ops")
    hits = await archive.search("postgres", OPS)
    assert [h.session for h in hits] == ["s2", "s1"]
    assert hits[0].score > hits[1].score


async def test_equal_matches_come_newest_first(archive: SessionArchive) -> None:
    for minute, session in [(3, "b"), (9, "c"), (1, "a")]:
        await archive.record(session, "user", "weekly standup notes", at(minute), personality="ops")
    assert [h.session for h in await archive.search("standup", OPS)] == ["c", "b", "a"]


async def test_a_personality_sees_only_its_own_messages(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "secret launch plan", at(0), personality="ops")
    await archive.record("s2", "user", "secret launch plan", at(1), personality="sales")
    await archive.record("s3", "user", "secret launch plan", at(2))
    assert [h.session for h in await archive.search("launch", OPS)] == ["s1"]
    sales = ArchiveScope(personality="sales")
    assert [h.session for h in await archive.search("launch", sales)] == ["s2"]


async def test_a_user_and_a_session_scope_filter_too(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "grocery list milk", at(0), user="ana")
    await archive.record("s2", "user", "grocery list eggs", at(1), user="ana")
    await archive.record("s3", "user", "grocery list bread", at(2), user="bo")
    found = await archive.search("grocery", ArchiveScope(user="ana"))
    assert [h.session for h in found] == ["s2", "s1"]
    found = await archive.search("grocery", ArchiveScope(session="s3"))
    assert [h.session for h in found] == ["s3"]


async def test_user_of_answers_the_latest_user_of_a_session(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "hi", at(0), user="ana")
    await archive.record("s1", "assistant", "hello", at(1))
    assert await archive.user_of("s1") == "ana"
    assert await archive.user_of("nope") is None


async def test_limit_is_clamped_to_the_maximum(archive: SessionArchive) -> None:
    for index in range(MAX_HITS + 5):
        await archive.record(f"s{index}", "user", "repeated topic", at(index), personality="ops")
    assert len(await archive.search("topic", OPS, limit=1000)) == MAX_HITS
    assert len(await archive.search("topic", OPS, limit=0)) == 1
    assert len(await archive.search("topic", OPS, limit=3)) == 3


async def test_snippets_stay_short_for_long_messages(archive: SessionArchive) -> None:
    text = " ".join(["filler"] * 5000 + ["needle"] + ["filler"] * 5000)
    await archive.record("s1", "tool", text, at(0), personality="ops")
    [hit] = await archive.search("needle", OPS)
    assert "**needle**" in hit.snippet
    assert len(hit.snippet) <= 300


@pytest.mark.parametrize("query", ["", "   ", "!!! ??? ***", '""', "-", "OR", "-alone"])
async def test_a_query_with_nothing_to_match_finds_nothing(
    archive: SessionArchive, query: str
) -> None:
    await archive.record("s1", "user", "alone in the archive", at(0), personality="ops")
    assert await archive.search(query, OPS) == []


async def test_forget_deletes_a_sessions_messages(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "remember this", at(0), personality="ops")
    await archive.record("s1", "assistant", "remember that", at(1), personality="ops")
    await archive.record("s2", "user", "remember more", at(2), personality="ops")
    assert await archive.forget("s1") == 2
    assert [h.session for h in await archive.search("remember", OPS)] == ["s2"]


async def test_nul_and_lone_surrogates_are_cleaned_not_refused(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "odd\x00 text \ud800 marker", at(0), personality="ops")
    [hit] = await archive.search("marker \ud800\x00", OPS)
    assert "\x00" not in hit.snippet


async def test_messages_survive_a_restart(open_archive: Callable[[], SessionArchive]) -> None:
    async with open_archive() as first:
        await first.record("s1", "user", "durable fact", at(0), personality="ops")
    async with open_archive() as second:
        assert [h.session for h in await second.search("durable", OPS)] == ["s1"]


async def test_bad_records_raise_store_error(archive: SessionArchive) -> None:
    with pytest.raises(StoreError, match="session"):
        await archive.record("", "user", "x")
    with pytest.raises(StoreError, match="role"):
        await archive.record("s", 3, "x")  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="at must be"):
        await archive.record("s", "user", "x", at="yesterday")  # type: ignore[arg-type]


# -- one answer on every store (outside check, issue 23: PostgreSQL's parser kept file names,
# hosts and versions as single tokens while queries were split into words; stop words differed)


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("edit config.yaml before the deploy", "config.yaml"),
        ("edit config.yaml before the deploy", "config"),
        ("add it to /etc/hosts on the box", "/etc/hosts"),
        ("pinned to 1.2.3 since monday", "1.2.3"),
        ("calls api.example.com for quotes", "api.example.com"),
        ("calls api.example.com for quotes", "example"),
        ("shipped v2.1 to staging", "v2.1"),
        ("lunch at the café downstairs", "café"),
        ("lunch at the café downstairs", "cafe"),
        ("listening on 10.0.0.12 port 8080", "10.0.0.12"),
        ("mail ops-team@example.org about it", "ops-team@example.org"),
    ],
)
async def test_file_names_hosts_versions_and_addresses_are_found(
    archive: SessionArchive, text: str, query: str
) -> None:
    await archive.record("s1", "user", text, at(0), personality="ops")
    await archive.record("s2", "user", "nothing to see here", at(1), personality="ops")
    assert [h.session for h in await archive.search(query, OPS)] == ["s1"]


async def test_stop_words_alone_find_nothing_on_every_store(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "the migration was done by the team", at(0),
                         personality="ops")  # fmt: skip
    assert await archive.search("the", OPS) == []
    assert await archive.search('"was the"', OPS) == []


async def test_stop_words_in_a_question_are_not_required(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "migration done at noon", at(0), personality="ops")
    await archive.record("s2", "user", "the migration is pending", at(1), personality="ops")
    assert [h.session for h in await archive.search("was the migration done", OPS)] == ["s1"]


async def test_a_phrase_keeps_its_stop_words_in_place(archive: SessionArchive) -> None:
    await archive.record("s1", "user", "rotate the api keys now", at(0), personality="ops")
    await archive.record("s2", "user", "rotate api keys later", at(1), personality="ops")
    assert [h.session for h in await archive.search('"rotate the api"', OPS)] == ["s1"]
