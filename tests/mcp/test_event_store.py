"""`KvEventStore`: a session's SSE events kept in a key-value store (memory and SQLite) and
replayed after a ``Last-Event-ID``; sessions never see each other's events; a stream keeps its
newest events only, and events expire."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.streamable_http import EventMessage
from mcp_types.jsonrpc import JSONRPCNotification, JSONRPCResponse

from toolwire import ToolRegistry
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.errors import ConfigurationError
from toolwire.mcp.server.event_store import EVENTS_SCOPE, EVENTS_TOOL, KvEventStore
from toolwire.stores import MemoryKeyValueBackend, SqliteKeyValueBackend
from toolwire.stores._base import KeyValueBackend

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "sqlite"])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KeyValueBackend]:
    made: KeyValueBackend = (
        MemoryKeyValueBackend()
        if request.param == "memory"
        else SqliteKeyValueBackend(str(tmp_path / "events.db"))
    )
    async with made:
        yield made


def _answer(request_id: int, text: str) -> JSONRPCResponse:
    return JSONRPCResponse(jsonrpc="2.0", id=request_id, result={"text": text})


def _progress(token: int, value: float) -> JSONRPCNotification:
    params = {"progressToken": token, "progress": value}
    return JSONRPCNotification(jsonrpc="2.0", method="notifications/progress", params=params)


async def _replay(store: object, last_event_id: str) -> tuple[str | None, list[EventMessage]]:
    sent: list[EventMessage] = []

    async def collect(event: EventMessage) -> None:
        sent.append(event)

    stream = await store.replay_events_after(last_event_id, collect)  # type: ignore[attr-defined]
    return stream, sent


async def test_a_stream_is_replayed_after_its_priming_event(backend: KeyValueBackend) -> None:
    events = KvEventStore(backend.scoped(EVENTS_TOOL, EVENTS_SCOPE)).for_session("session-a")
    primed = await events.store_event("7", None)
    progress = await events.store_event("7", _progress(1, 0.5))
    await events.store_event("8", _answer(8, "another request"))
    answer = await events.store_event("7", _answer(7, "done"))

    stream, sent = await _replay(events, primed)

    assert stream == "7"
    assert [event.event_id for event in sent] == [progress, answer]
    assert isinstance(sent[0].message, JSONRPCNotification)
    assert isinstance(sent[1].message, JSONRPCResponse)
    assert sent[1].message.result == {"text": "done"}
    assert (await _replay(events, progress))[1][0].event_id == answer
    assert await _replay(events, answer) == ("7", [])


async def test_request_ids_with_odd_characters_round_trip(backend: KeyValueBackend) -> None:
    events = KvEventStore(backend.scoped(EVENTS_TOOL, EVENTS_SCOPE)).for_session("s")
    primed = await events.store_event("a/b c#1", None)
    await events.store_event("a/b c#1", _answer(1, "odd"))
    stream, sent = await _replay(events, primed)
    assert stream == "a/b c#1"
    assert len(sent) == 1


async def test_sessions_never_see_each_others_events(backend: KeyValueBackend) -> None:
    shared = KvEventStore(backend.scoped(EVENTS_TOOL, EVENTS_SCOPE))
    alice, bob = shared.for_session("alice"), shared.for_session("bob")
    alice_primed = await alice.store_event("1", None)
    await alice.store_event("1", _answer(1, "alice's"))
    bob_primed = await bob.store_event("1", None)  # the same request id in another session
    await bob.store_event("1", _answer(1, "bob's"))

    _, bobs = await _replay(bob, bob_primed)
    _, alices = await _replay(alice, alice_primed)
    assert [e.message.result for e in bobs] == [{"text": "bob's"}]  # type: ignore[union-attr]
    assert [e.message.result for e in alices] == [{"text": "alice's"}]  # type: ignore[union-attr]


async def test_an_event_id_of_another_session_is_unknown(backend: KeyValueBackend) -> None:
    shared = KvEventStore(backend.scoped(EVENTS_TOOL, EVENTS_SCOPE))
    primed = await shared.for_session("alice").store_event("1", None)
    await shared.for_session("alice").store_event("1", _answer(1, "secret"))
    assert await _replay(shared.for_session("mallory"), primed) == (None, [])


@pytest.mark.parametrize("bad", ["", "7", "7/", "/12", "7/x", "../7/1", "7/99999999999999999999"])
async def test_malformed_or_unknown_event_ids_replay_nothing(
    backend: KeyValueBackend, bad: str
) -> None:
    events = KvEventStore(backend.scoped(EVENTS_TOOL, EVENTS_SCOPE)).for_session("s")
    await events.store_event("7", None)
    await events.store_event("7", _answer(7, "x"))
    assert await _replay(events, bad) == (None, [])


async def test_a_stream_keeps_only_its_newest_events(backend: KeyValueBackend) -> None:
    store = KvEventStore(backend.scoped(EVENTS_TOOL, EVENTS_SCOPE), max_events_per_stream=3)
    events = store.for_session("s")
    ids = [await events.store_event("1", None)]
    ids += [await events.store_event("1", _progress(1, n)) for n in range(4)]

    assert await _replay(events, ids[0]) == (None, [])  # dropped: cannot resume from it
    assert await _replay(events, ids[1]) == (None, [])
    stream, sent = await _replay(events, ids[2])
    assert stream == "1"
    assert [e.event_id for e in sent] == ids[3:]
    assert len(await backend.scoped(EVENTS_TOOL, EVENTS_SCOPE).list("")) == 3


async def test_events_expire(backend: KeyValueBackend) -> None:
    events = KvEventStore(backend.scoped(EVENTS_TOOL, EVENTS_SCOPE), ttl_s=0.2).for_session("s")
    primed = await events.store_event("1", None)
    await events.store_event("1", _answer(1, "late"))
    assert len((await _replay(events, primed))[1]) == 1
    await anyio.sleep(0.5)
    assert await _replay(events, primed) == (None, [])


async def test_the_registrys_backend_holds_the_events(tmp_path: Path) -> None:
    async with SqliteKeyValueBackend(str(tmp_path / "kv.db")) as kv:
        registry = ToolRegistry(backends=CapabilityBackends(kv_store_factory=kv.scoped))
        events = KvEventStore.for_registry(registry).for_session("s")
        await events.store_event("1", _answer(1, "kept"))
        keys = await kv.scoped(EVENTS_TOOL, EVENTS_SCOPE).list("")
    assert len(keys) == 1


async def test_without_a_backend_the_events_stay_in_the_process() -> None:
    events = KvEventStore.for_registry(ToolRegistry()).for_session("s")
    primed = await events.store_event("1", None)
    await events.store_event("1", _answer(1, "here"))
    assert len((await _replay(events, primed))[1]) == 1


@pytest.mark.parametrize(
    "bad", [{"ttl_s": 0}, {"ttl_s": float("inf")}, {"max_events_per_stream": 0}]
)
def test_bad_bounds_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ConfigurationError):
        KvEventStore(MemoryKeyValueBackend().scoped(EVENTS_TOOL, EVENTS_SCOPE), **bad)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(stream_id=st.text(min_size=1, max_size=40), garbage=st.text(max_size=60))
async def test_any_request_id_round_trips_and_no_other_id_replays(
    stream_id: str, garbage: str
) -> None:
    events = KvEventStore(MemoryKeyValueBackend().scoped(EVENTS_TOOL, EVENTS_SCOPE))
    session = events.for_session("s")
    primed = await session.store_event(stream_id, None)
    await session.store_event(stream_id, _answer(1, "x"))
    stream, sent = await _replay(session, primed)
    assert stream == stream_id
    assert len(sent) == 1
    if garbage != primed:
        assert await _replay(session, garbage) == (None, [])
