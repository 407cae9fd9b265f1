"""gated_tools: filtering, fail-closed predicates, stacking, sync/async mirroring."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st
from provider_helpers import AsyncProvider, EventLog, make_tools, names

from toolwire.errors import ConfigurationError, ProviderError
from toolwire.providers import (
    DiscoveryFailed,
    ProviderContext,
    gated_tools,
    list_tools,
    static_tools,
)
from toolwire.tools import Tool

CTX = ProviderContext(iteration=2)


def test_gate_keeps_only_allowed_tools_in_order() -> None:
    provider = gated_tools(static_tools(make_tools("a", "b", "c")), lambda t, c: t.name != "b")
    assert names(provider.list(CTX)) == ["a", "c"]  # type: ignore[arg-type]


def test_gate_predicate_receives_the_context() -> None:
    seen: list[ProviderContext] = []

    def predicate(tool: Tool, ctx: ProviderContext) -> bool:
        seen.append(ctx)
        return True

    gated_tools(static_tools(make_tools("a")), predicate).list(CTX)
    assert seen == [CTX]


def test_gate_can_allow_none() -> None:
    assert gated_tools(static_tools(make_tools("a")), lambda t, c: False).list(CTX) == []


@pytest.mark.parametrize("verdict", [None, 1, "yes", [True]])
def test_anything_but_true_denies(verdict: object) -> None:
    provider = gated_tools(static_tools(make_tools("a")), lambda t, c: verdict)  # type: ignore[arg-type,return-value]
    assert provider.list(CTX) == []


def _raising(tool: Tool, ctx: ProviderContext) -> bool:
    raise PermissionError("policy service down")


def test_raising_predicate_propagates_instead_of_allowing() -> None:
    with pytest.raises(PermissionError):
        gated_tools(static_tools(make_tools("a")), _raising).list(CTX)


@pytest.mark.anyio
async def test_raising_predicate_is_a_provider_error_with_discovery_failed() -> None:
    events = EventLog()
    provider = gated_tools(static_tools(make_tools("a")), _raising)
    with pytest.raises(ProviderError) as caught:
        await list_tools(provider, CTX, on_event=events)
    assert isinstance(caught.value.__cause__, PermissionError)
    (event,) = events
    assert isinstance(event, DiscoveryFailed)
    assert (event.provider_id, event.error_type, event.iteration) == ("gated", "PermissionError", 2)


@pytest.mark.anyio
async def test_raising_predicate_over_an_async_provider_also_fails_loudly() -> None:
    provider = gated_tools(AsyncProvider(make_tools("a")), _raising)
    with pytest.raises(ProviderError):
        await list_tools(provider, CTX)


def test_gate_over_sync_stays_sync() -> None:
    value = gated_tools(static_tools(make_tools("a")), lambda t, c: True).list(CTX)
    assert isinstance(value, list)


@pytest.mark.anyio
async def test_gate_over_async_returns_an_awaitable_that_filters() -> None:
    value = gated_tools(AsyncProvider(make_tools("a", "b")), lambda t, c: t.name == "b").list(CTX)
    assert inspect.isawaitable(value)
    assert names(await value) == ["b"]


def test_stacked_gates_see_the_inner_gates_output() -> None:
    seen: list[str] = []

    def outer(tool: Tool, ctx: ProviderContext) -> bool:
        seen.append(tool.name)
        return True

    inner = gated_tools(static_tools(make_tools("a", "b")), lambda t, c: t.name == "a")
    assert names(gated_tools(inner, outer).list(CTX)) == ["a"]  # type: ignore[arg-type]
    assert seen == ["a"]


def test_gate_returns_a_new_list_each_call() -> None:
    provider = gated_tools(static_tools(make_tools("a")), lambda t, c: True)
    assert provider.list(CTX) is not provider.list(CTX)


def test_gate_id_defaults_to_gated() -> None:
    assert gated_tools(static_tools([]), lambda t, c: True).id == "gated"


def test_gate_refuses_a_non_callable_predicate() -> None:
    with pytest.raises(ConfigurationError, match="predicate"):
        gated_tools(static_tools([]), "admin")  # type: ignore[arg-type]


@given(st.lists(st.sampled_from("abcdefgh"), unique=True), st.sets(st.sampled_from("abcdefgh")))
def test_gate_never_returns_a_denied_tool(all_names: list[str], allowed: set[str]) -> None:
    provider = gated_tools(static_tools(make_tools(*all_names)), lambda t, c: t.name in allowed)
    result = names(provider.list(CTX))  # type: ignore[arg-type]
    assert result == [n for n in all_names if n in allowed]
