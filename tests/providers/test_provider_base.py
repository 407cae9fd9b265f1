"""list_tools / list_tools_sync: the sync fast path, awaiting, and loud discovery failures."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Awaitable

import anyio
import pytest
from provider_helpers import AsyncProvider, EventLog, SyncProvider, make_tools, names

from toolwire.errors import ProviderError
from toolwire.providers import (
    DISCOVERY_COMPLETED,
    DISCOVERY_FAILED,
    DiscoveryCompleted,
    DiscoveryFailed,
    ProviderContext,
    ToolProvider,
    list_tools,
    list_tools_sync,
    static_tools,
)
from toolwire.tools import Tool

CTX = ProviderContext(iteration=3, session_id="s1")


@pytest.mark.anyio
async def test_sync_provider_is_listed_without_a_checkpoint() -> None:
    provider = SyncProvider(make_tools("a", "b"))
    with anyio.CancelScope() as scope:
        scope.cancel()  # any checkpoint inside list_tools would now raise
        tools = await list_tools(provider, CTX)
    assert names(tools) == ["a", "b"]
    assert not scope.cancelled_caught


@pytest.mark.anyio
async def test_async_provider_is_awaited() -> None:
    provider = AsyncProvider(make_tools("x"))
    tools = await list_tools(provider, CTX)
    assert names(tools) == ["x"]
    assert provider.runs == 1


def test_list_tools_sync_works_outside_an_event_loop() -> None:
    assert names(list_tools_sync(static_tools(make_tools("a")), CTX)) == ["a"]


@pytest.mark.anyio
async def test_list_tools_sync_works_inside_an_event_loop() -> None:
    assert names(list_tools_sync(static_tools(make_tools("a")), CTX)) == ["a"]


def test_list_tools_sync_refuses_an_async_provider_and_closes_its_coroutine() -> None:
    events = EventLog()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine was never awaited" would surface here
        with pytest.raises(ProviderError, match="asynchronous"):
            list_tools_sync(AsyncProvider(make_tools("a")), CTX, on_event=events)
        gc.collect()
    assert [type(e) for e in events] == [DiscoveryFailed]


def test_list_tools_runs_under_anyio_run_from_sync_code() -> None:
    async def main() -> list[Tool]:
        return await list_tools(AsyncProvider(make_tools("z")), CTX)

    assert names(anyio.run(main)) == ["z"]


@pytest.mark.anyio
async def test_each_call_returns_a_new_list() -> None:
    provider = static_tools(make_tools("a"))
    first = await list_tools(provider, CTX)
    second = await list_tools(provider, CTX)
    assert first == second
    assert first is not second


@pytest.mark.anyio
async def test_success_emits_discovery_completed_with_count_and_iteration() -> None:
    events = EventLog()
    await list_tools(SyncProvider(make_tools("a", "b"), id="p1"), CTX, on_event=events)
    (event,) = events
    assert isinstance(event, DiscoveryCompleted)
    assert event.event == DISCOVERY_COMPLETED
    assert (event.provider_id, event.iteration, event.tool_count) == ("p1", 3, 2)
    assert event.duration_ms >= 0


@pytest.mark.anyio
async def test_sync_raise_becomes_provider_error_chaining_the_cause() -> None:
    provider = SyncProvider([], id="hub-a")
    provider.error = TimeoutError("hub timed out")
    with pytest.raises(ProviderError) as caught:
        await list_tools(provider, CTX)
    assert caught.value.provider_id == "hub-a"
    assert isinstance(caught.value.__cause__, TimeoutError)
    assert "hub timed out" in str(caught.value)


@pytest.mark.anyio
async def test_failure_emits_discovery_failed_with_every_field() -> None:
    provider = AsyncProvider([], id="hub-b")
    provider.error = ConnectionError("refused")
    events = EventLog()
    with pytest.raises(ProviderError):
        await list_tools(provider, ProviderContext(iteration=7), on_event=events)
    (event,) = events
    assert isinstance(event, DiscoveryFailed)
    assert event.event == DISCOVERY_FAILED == "tools.discovery_failed"
    assert event.provider_id == "hub-b"
    assert event.error_type == "ConnectionError"
    assert event.message == "refused"
    assert event.iteration == 7
    assert event.duration_ms >= 0


@pytest.mark.anyio
async def test_a_failure_emits_no_completed_event() -> None:
    provider = SyncProvider([])
    provider.error = RuntimeError("boom")
    events = EventLog()
    with pytest.raises(ProviderError):
        await list_tools(provider, CTX, on_event=events)
    assert [type(e) for e in events] == [DiscoveryFailed]


class _ReturnsNone:
    id = "broken"

    def list(self, ctx: ProviderContext) -> list[Tool]:
        return None  # type: ignore[return-value]


class _ReturnsStrings:
    id = "strings"

    def list(self, ctx: ProviderContext) -> list[Tool]:
        return ["search"]  # type: ignore[list-item]


@pytest.mark.anyio
@pytest.mark.parametrize("provider", [_ReturnsNone(), _ReturnsStrings()])
async def test_a_non_tool_answer_is_a_discovery_failure_not_an_empty_list(
    provider: ToolProvider,
) -> None:
    events = EventLog()
    with pytest.raises(ProviderError, match="must"):
        await list_tools(provider, CTX, on_event=events)
    assert isinstance(events[0], DiscoveryFailed)
    assert events[0].error_type == "TypeError"


class _NoId:
    def list(self, ctx: ProviderContext) -> list[Tool]:
        raise ValueError("nope")


@pytest.mark.anyio
async def test_a_provider_without_id_is_reported_by_class_name() -> None:
    with pytest.raises(ProviderError) as caught:
        await list_tools(_NoId(), CTX)  # type: ignore[arg-type]
    assert caught.value.provider_id == "_NoId"


@pytest.mark.anyio
async def test_cancellation_is_not_turned_into_a_provider_error() -> None:
    provider = AsyncProvider(make_tools("a"))
    provider.gate = anyio.Event()
    with anyio.move_on_after(0.01) as scope:
        await list_tools(provider, CTX)
    assert scope.cancelled_caught


def test_provider_context_is_frozen_and_copies_extra() -> None:
    extra = {"tenant": "acme"}
    ctx = ProviderContext(extra=extra)
    extra["tenant"] = "evil"
    assert ctx.extra["tenant"] == "acme"
    with pytest.raises(TypeError):
        ctx.extra["tenant"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        ctx.iteration = 2  # type: ignore[misc]


def test_builtin_providers_satisfy_the_protocol() -> None:
    provider: ToolProvider = static_tools([])
    assert isinstance(provider, ToolProvider)
    value = provider.list(CTX)
    assert not isinstance(value, Awaitable)
