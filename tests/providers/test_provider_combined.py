"""combined: order, first-wins duplicates with a report, sync/async, failures propagate."""

from __future__ import annotations

import gc
import inspect
import logging
import warnings

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from provider_helpers import AsyncProvider, EventLog, SyncProvider, make_tool, make_tools, names

from toolwire.errors import ConfigurationError, ProviderError
from toolwire.providers import (
    TOOL_SHADOWED,
    DiscoveryFailed,
    ProviderContext,
    ToolProvider,
    ToolShadowed,
    combined,
    list_tools,
    skill_scoped_tools,
    static_tools,
)
from toolwire.tools import Tool

CTX = ProviderContext(iteration=4)


def test_combined_keeps_provider_order_then_each_providers_order() -> None:
    provider = combined(static_tools(make_tools("b", "a")), static_tools(make_tools("d", "c")))
    assert names(provider.list(CTX)) == ["b", "a", "d", "c"]  # type: ignore[arg-type]


def test_duplicate_name_keeps_the_first_providers_tool() -> None:
    first = make_tool("search", reply="first")
    second = make_tool("search", reply="second")
    provider = combined(
        static_tools([first], id="core"), static_tools([second], id="hub"), on_shadowed=EventLog()
    )
    tools = provider.list(CTX)
    assert tools == [first]


def test_duplicate_is_reported_with_both_provider_ids() -> None:
    events = EventLog()
    provider = combined(
        static_tools(make_tools("search"), id="core"),
        static_tools(make_tools("fetch", "search"), id="hub"),
        on_shadowed=events,
    )
    provider.list(CTX)
    assert events == [
        ToolShadowed(name="search", kept_provider_id="core", dropped_provider_id="hub", iteration=4)
    ]
    assert events[0].event == TOOL_SHADOWED == "tools.shadowed"


def test_duplicate_is_reported_on_every_listing() -> None:
    events = EventLog()
    provider = combined(
        static_tools(make_tools("a")), static_tools(make_tools("a")), on_shadowed=events
    )
    provider.list(CTX)
    provider.list(CTX)
    assert len(events) == 2


def test_without_a_handler_a_duplicate_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    provider = combined(
        static_tools(make_tools("a"), id="p1"), static_tools(make_tools("a"), id="p2")
    )
    with caplog.at_level(logging.WARNING, logger="toolwire.providers"):
        provider.list(CTX)
        provider.list(CTX)
    assert len(caplog.records) == 1
    assert "'a'" in caplog.records[0].getMessage()


def test_all_sync_children_give_a_sync_list() -> None:
    value = combined(static_tools(make_tools("a")), static_tools(make_tools("b"))).list(CTX)
    assert isinstance(value, list)


@pytest.mark.anyio
async def test_an_async_child_makes_it_awaitable_and_keeps_order() -> None:
    provider = combined(
        static_tools(make_tools("a")),
        AsyncProvider(make_tools("b", "c")),
        static_tools(make_tools("d")),
    )
    value = provider.list(CTX)
    assert inspect.isawaitable(value)
    assert names(await value) == ["a", "b", "c", "d"]


def test_only_the_active_skill_shows_through() -> None:
    provider = combined(
        skill_scoped_tools("pdf", make_tools("pdf_read")),
        skill_scoped_tools("csv", make_tools("csv_read")),
    )
    assert names(provider.list(ProviderContext(active_skill_id="csv"))) == ["csv_read"]  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_a_failing_sync_child_fails_the_whole_listing() -> None:
    broken = SyncProvider(make_tools("b"), id="broken")
    broken.error = RuntimeError("down")
    events = EventLog()
    with pytest.raises(ProviderError) as caught:
        await list_tools(combined(static_tools(make_tools("a")), broken), CTX, on_event=events)
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert isinstance(events[0], DiscoveryFailed)
    assert events[0].provider_id == "combined"


@pytest.mark.anyio
async def test_a_failing_async_child_raises_its_own_error_not_a_group() -> None:
    broken = AsyncProvider([], id="hub")
    broken.error = ConnectionError("refused")
    with pytest.raises(ProviderError) as caught:
        await list_tools(combined(AsyncProvider(make_tools("a")), broken), CTX)
    assert isinstance(caught.value.__cause__, ConnectionError)


@pytest.mark.anyio
async def test_a_sync_failure_after_an_async_child_closes_the_pending_coroutine() -> None:
    broken = SyncProvider([], id="broken")
    broken.error = RuntimeError("down")
    pending = AsyncProvider(make_tools("a"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine ... was never awaited" would raise here
        with pytest.raises(RuntimeError):
            combined(pending, broken).list(CTX)
        gc.collect()
    assert pending.runs == 0


def test_combined_refuses_a_non_provider() -> None:
    with pytest.raises(ConfigurationError, match="position 1"):
        combined(static_tools([]), make_tools("a"))  # type: ignore[arg-type]


def test_combined_returns_a_new_list_each_call() -> None:
    provider = combined(static_tools(make_tools("a")))
    assert provider.list(CTX) is not provider.list(CTX)


_child = st.tuples(st.lists(st.sampled_from("abcdef"), unique=True, max_size=4), st.booleans())


@given(st.lists(_child, max_size=5))
def test_combined_is_first_wins_in_order_and_sync_iff_every_child_is(
    children: list[tuple[list[str], bool]],
) -> None:
    providers: list[ToolProvider] = [
        AsyncProvider(make_tools(*names_), id=f"p{i}")
        if is_async
        else SyncProvider(make_tools(*names_), id=f"p{i}")
        for i, (names_, is_async) in enumerate(children)
    ]
    expected = list(dict.fromkeys(name for names_, _ in children for name in names_))
    value = combined(*providers, on_shadowed=EventLog()).list(CTX)
    if any(is_async for _, is_async in children):
        assert inspect.isawaitable(value)

        async def resolve() -> list[Tool]:
            return await value  # type: ignore[no-any-return,misc]

        value = anyio.run(resolve)
    assert isinstance(value, list)
    assert names(value) == expected
