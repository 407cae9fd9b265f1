"""A snapshot with the real ToolRegistry: hidden tools are neither shown nor run."""

from __future__ import annotations

from typing import Any

import pytest
from provider_helpers import make_tool

from toolwire.calls import ToolCall
from toolwire.context import ToolContext
from toolwire.providers import (
    NOT_OFFERED,
    ProviderContext,
    gated_tools,
    static_tools,
    take_snapshot,
)
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok
from toolwire.tools import Tool

READ = make_tool("read")
ADMIN = make_tool("admin")
MCP = make_tool("mcp__hub__deploy")
ALL = [READ, ADMIN, MCP]


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    for tool in ALL:
        registry.register(tool)
    return registry


def _only_read(tool: Tool, ctx: ProviderContext) -> bool:
    return tool.name == "read"


@pytest.mark.anyio
async def test_an_allowlist_alone_would_run_a_hidden_mcp_tool() -> None:
    outcome = (
        await _registry().execute_parallel(
            [ToolCall(id="1", name="mcp__hub__deploy")],
            ToolContext(session_id="s"),
            allowed_tools=["read"],
        )
    )[0]
    assert isinstance(outcome.result, Ok)  # why the snapshot must gate dispatch itself


@pytest.mark.anyio
async def test_snapshot_dispatch_refuses_hidden_builtin_and_mcp_tools() -> None:
    registry = _registry()
    snapshot = await take_snapshot(gated_tools(static_tools(ALL), _only_read), ProviderContext())
    calls = [
        ToolCall(id="1", name="read"),
        ToolCall(id="2", name="admin"),
        ToolCall(id="3", name="mcp__hub__deploy"),
    ]

    async def run(offered: list[ToolCall]) -> Any:
        return await registry.execute_parallel(
            offered, ToolContext(session_id="s"), allowed_tools=snapshot.allowed_tools()
        )

    outcomes = await snapshot.dispatch(calls, run)
    assert [o.tool_call_id for o in outcomes] == ["1", "2", "3"]
    assert isinstance(outcomes[0].result, Ok)
    for refused in outcomes[1:]:
        assert isinstance(refused.result, Err)
        assert refused.result.reason == NOT_OFFERED


@pytest.mark.anyio
async def test_restrict_removes_hidden_tools_from_registry_definitions() -> None:
    registry = _registry()
    snapshot = await take_snapshot(gated_tools(static_tools(ALL), _only_read), ProviderContext())
    definitions = registry.definitions(allowed_tools=snapshot.allowed_tools())
    assert "mcp__hub__deploy" in [d["name"] for d in definitions]
    assert [d["name"] for d in snapshot.restrict(definitions)] == ["read"]
