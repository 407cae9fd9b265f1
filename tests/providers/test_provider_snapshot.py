"""ToolSnapshot: one listing serves definitions and dispatch; hidden tools never run."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import pytest
from provider_helpers import AsyncProvider, EventLog, make_tool, make_tools

from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ToolContext
from toolwire.errors import ProviderError
from toolwire.providers import (
    NOT_OFFERED,
    DiscoveryCompleted,
    ProviderContext,
    ToolShadowed,
    ToolSnapshot,
    gated_tools,
    static_tools,
    take_snapshot,
)
from toolwire.results import Err, ErrorCode, Ok
from toolwire.tools import Tool


class Runner:
    """Runs calls by executing the tools it knows; records what it was asked to run."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.ran: list[str] = []

    async def __call__(self, calls: list[ToolCall]) -> list[CallOutcome]:
        outcomes = []
        for call in calls:
            self.ran.append(call.name)
            started = time.perf_counter()
            result = await self.tools[call.name].execute({}, ToolContext(session_id="s"))
            outcomes.append(
                CallOutcome(
                    tool_call_id=call.id,
                    name=call.name,
                    result=result,
                    duration_ms=(time.perf_counter() - started) * 1000,
                )
            )
        return outcomes


ALL = make_tools("read", "write", "admin")


@pytest.mark.anyio
async def test_snapshot_lists_the_provider_once() -> None:
    provider = AsyncProvider(ALL)
    snapshot = await take_snapshot(provider, ProviderContext(iteration=2))
    snapshot.definitions()
    snapshot.allowed_tools()
    await snapshot.dispatch([ToolCall(id="1", name="read")], Runner(ALL))
    assert provider.runs == 1
    assert snapshot.iteration == 2


@pytest.mark.anyio
async def test_a_hidden_tool_is_not_available_and_never_runs() -> None:
    provider = gated_tools(static_tools(ALL), lambda t, c: t.name != "admin")
    snapshot = await take_snapshot(provider, ProviderContext())
    runner = Runner(ALL)
    calls = [ToolCall(id="1", name="read"), ToolCall(id="2", name="admin")]
    outcomes = await snapshot.dispatch(calls, runner)
    assert runner.ran == ["read"]
    assert isinstance(outcomes[0].result, Ok)
    refused = outcomes[1].result
    assert isinstance(refused, Err)
    assert refused.code is ErrorCode.NOT_AVAILABLE
    assert refused.reason == NOT_OFFERED
    assert outcomes[1].tool_call_id == "2"


@pytest.mark.anyio
async def test_dispatch_keeps_the_input_order() -> None:
    snapshot = ToolSnapshot.of(make_tools("a", "b"))
    calls = [
        ToolCall(id="1", name="x"),
        ToolCall(id="2", name="b"),
        ToolCall(id="3", name="y"),
        ToolCall(id="4", name="a"),
    ]
    outcomes = await snapshot.dispatch(calls, Runner(make_tools("a", "b")))
    assert [o.tool_call_id for o in outcomes] == ["1", "2", "3", "4"]
    assert [o.result.ok for o in outcomes] == [False, True, False, True]


@pytest.mark.anyio
async def test_an_empty_snapshot_refuses_everything_without_running() -> None:
    runner = Runner(ALL)
    outcomes = await ToolSnapshot.of([]).dispatch([ToolCall(id="1", name="read")], runner)
    assert runner.ran == []
    assert isinstance(outcomes[0].result, Err)
    assert "No tools." in outcomes[0].result.error


@pytest.mark.anyio
async def test_dispatch_refuses_a_runner_that_drops_outcomes() -> None:
    async def lossy(calls: list[ToolCall]) -> list[CallOutcome]:
        return []

    with pytest.raises(ValueError, match="exactly one outcome per call"):
        await ToolSnapshot.of(make_tools("a")).dispatch([ToolCall(id="1", name="a")], lossy)


def test_refusal_names_the_offered_tools() -> None:
    outcome = ToolSnapshot.of(make_tools("a", "b")).refuse(ToolCall(id="9", name="zzz"))
    assert isinstance(outcome.result, Err)
    assert outcome.result.error.startswith("Unknown tool: zzz")
    assert "Available tools: a, b." in outcome.result.error


def test_duplicate_names_keep_the_first_tool() -> None:
    first, second = make_tool("a", reply="1"), make_tool("a", reply="2")
    snapshot = ToolSnapshot.of([first, second, make_tool("b")])
    assert snapshot.get("a") is first
    assert snapshot.dropped == (second,)
    assert snapshot.allowed_tools() == ["a", "b"]


@pytest.mark.anyio
async def test_take_snapshot_reports_a_duplicate_from_one_provider() -> None:
    class Dupes:
        id = "dupes"

        def list(self, ctx: ProviderContext) -> list[Tool]:
            return [make_tool("a"), make_tool("a")]

    events = EventLog()
    await take_snapshot(Dupes(), ProviderContext(iteration=5), on_event=events)
    assert [type(e) for e in events] == [DiscoveryCompleted, ToolShadowed]


@pytest.mark.anyio
async def test_take_snapshot_fails_loudly_instead_of_an_empty_snapshot() -> None:
    provider = AsyncProvider(ALL)
    provider.error = TimeoutError("slow hub")
    with pytest.raises(ProviderError):
        await take_snapshot(provider, ProviderContext())


def test_definitions_are_neutral_copies_in_order() -> None:
    snapshot = ToolSnapshot.of(make_tools("b", "a"))
    definitions = snapshot.definitions()
    assert [d["name"] for d in definitions] == ["b", "a"]
    assert set(definitions[0]) == {"name", "description", "parameters"}
    definitions[0]["parameters"]["properties"]["x"] = {}
    assert "x" not in snapshot.get("b").schema["properties"]  # type: ignore[union-attr]


def test_definitions_leave_out_unavailable_tools() -> None:
    def broken() -> bool:
        raise RuntimeError("probe failed")

    tools = [
        make_tool("a"),
        replace(make_tool("b"), is_available=lambda: False),
        replace(make_tool("c"), is_available=broken),
    ]
    assert [d["name"] for d in ToolSnapshot.of(tools).definitions()] == ["a"]


def test_snapshot_is_a_read_only_sequence_of_tools() -> None:
    snapshot = ToolSnapshot.of(make_tools("a", "b"))
    assert len(snapshot) == 2
    assert "a" in snapshot
    assert "z" not in snapshot
    assert [t.name for t in snapshot] == ["a", "b"]
    assert snapshot.names == frozenset({"a", "b"})
    assert snapshot.allowed_tools() is not snapshot.allowed_tools()
    with pytest.raises(AttributeError):
        snapshot.tools = ()  # type: ignore[misc]
