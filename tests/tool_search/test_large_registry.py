"""The issue's end state: 2,000 tools (built-in, user and bridged MCP) offer the model only
``tool_search`` and what must stay; the model finds, is offered and calls what it needs."""

from __future__ import annotations

import json

import pytest
from ts_helpers import make

from toolwire.calls import ToolCall
from toolwire.context import ToolContext
from toolwire.providers._base import ProviderContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok
from toolwire.tool_search import DeferralRules, ToolSearch
from toolwire.tool_search._deferral import definitions_chars
from toolwire.toolbox import default_tools

pytestmark = pytest.mark.anyio

TARGET = "mcp__weather__forecast_by_city"


def _registry() -> tuple[ToolRegistry, ToolSearch]:
    builtins = default_tools()
    user = [
        make(f"user_report_{i}", f"Build report number {i} of the finance team.", defer=False)
        for i in range(960)
    ]
    bridged = [
        make(f"mcp__srv{i % 40}__action_{i}", f"Server {i % 40} action {i}.", defer=False)
        for i in range(999)
    ]
    bridged.append(
        make(TARGET, "Get the weather forecast for a city.", defer=False, city="City name")
    )
    registry = ToolRegistry()
    registry.register_all([*builtins, *user, *bridged])
    search = ToolSearch(registry, rules=DeferralRules(max_tools=100, keep=["read_file"]))
    return registry, search


async def test_two_thousand_tools_offer_only_tool_search_and_what_stays() -> None:
    registry, search = _registry()
    assert len(registry) == 2000 + 1  # + tool_search
    shown = registry.definitions()
    assert [d["name"] for d in shown] == ["read_file", "tool_search"]
    assert len(json.dumps(shown)) < 0.02 * definitions_chars(registry.available())

    ctx = ToolContext(session_id="s1")
    found = await registry.execute("tool_search", {"query": "weather in Paris tomorrow"}, ctx)
    assert isinstance(found.result, Ok)
    assert found.result.structured is not None
    assert found.result.structured["tools"][0]["name"] == TARGET
    kanban = await registry.execute("tool_search", {"query": "move a card on the board"}, ctx)
    assert isinstance(kanban.result, Ok)
    assert kanban.result.structured is not None
    assert "kanban_move" in [t["name"] for t in kanban.result.structured["tools"]]

    snapshot = await search.snapshot(ProviderContext(session_id="s1"))
    offered = {d["name"] for d in registry.definitions(snapshot=snapshot)}
    assert {"read_file", "tool_search", TARGET, "kanban_move"} <= offered
    assert len(offered) <= 2 + 2 * 5
    call = ToolCall(id="c1", name=TARGET, args={"city": "Paris"})
    (outcome,) = await registry.execute_parallel([call], ctx, snapshot=snapshot)
    assert outcome.result == Ok("ran for s1")

    elsewhere = await search.snapshot(ProviderContext(session_id="s2"))
    (refused,) = await registry.execute_parallel(
        [call], ToolContext(session_id="s2"), snapshot=elsewhere
    )
    assert isinstance(refused.result, Err)
    assert refused.result.reason == "not_offered"
