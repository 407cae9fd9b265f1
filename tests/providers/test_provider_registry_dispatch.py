"""A snapshot with the real ToolRegistry: hidden tools are neither shown nor run."""

from __future__ import annotations

from typing import Any

import pytest
from provider_helpers import make_tool

from toolwire.calls import ToolCall
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError, ToolDefinitionError
from toolwire.providers import (
    NOT_OFFERED,
    ProviderContext,
    ToolSnapshot,
    gated_tools,
    static_tools,
    take_snapshot,
)
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.tools import Tool, define_tool

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


# -- the registry's own admission gate: snapshot= ---------------------------------------------


@pytest.mark.anyio
async def test_execute_parallel_with_a_snapshot_refuses_what_the_model_was_not_shown() -> None:
    registry = _registry()
    snapshot = await take_snapshot(gated_tools(static_tools(ALL), _only_read), ProviderContext())
    calls = [
        ToolCall(id="1", name="read"),
        ToolCall(id="2", name="admin"),
        ToolCall(id="3", name="mcp__hub__deploy"),
    ]
    outcomes = await registry.execute_parallel(
        calls, ToolContext(session_id="s"), snapshot=snapshot
    )
    assert [o.tool_call_id for o in outcomes] == ["1", "2", "3"]
    assert outcomes[0].result == Ok("read")
    for refused in outcomes[1:]:
        assert isinstance(refused.result, Err)
        assert refused.result.reason == NOT_OFFERED
        assert refused.result.error.startswith(f"Unknown tool: {refused.name} (not offered")


@pytest.mark.anyio
async def test_a_snapshot_hides_even_always_include_and_mcp_tools_from_definitions() -> None:
    always = define_tool(
        name="skill", description="d", schema={}, execute=_answer("s"), always_include=True
    )
    registry = _registry()
    registry.register(always)
    snapshot = await take_snapshot(gated_tools(static_tools(ALL), _only_read), ProviderContext())
    definitions = registry.definitions(allowed_tools=[], snapshot=snapshot)
    assert [d["name"] for d in definitions] == []  # the allowlist hid read; the snapshot the rest
    assert [d["name"] for d in registry.definitions(snapshot=snapshot)] == ["read"]


@pytest.mark.anyio
async def test_a_registry_is_a_provider_of_its_available_tools() -> None:
    registry = _registry()
    registry.register(
        define_tool(
            name="off", description="d", schema={}, execute=_answer("x"), is_available=lambda: False
        )
    )
    assert registry.id == "registry"
    snapshot = await take_snapshot(registry, ProviderContext())
    assert snapshot.allowed_tools() == ["read", "admin", "mcp__hub__deploy"]
    first, second = registry.list(ProviderContext()), registry.list(ProviderContext())
    assert first == second
    assert first is not second
    assert ToolRegistry(provider_id="tenant-a").id == "tenant-a"


@pytest.mark.anyio
async def test_a_snapshot_that_is_not_a_snapshot_is_a_programming_error() -> None:
    registry = _registry()
    with pytest.raises(ConfigurationError, match="snapshot= takes a ToolSnapshot"):
        await registry.execute_parallel([], ToolContext(session_id="s"), snapshot=["read"])  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="snapshot= takes a ToolSnapshot"):
        registry.definitions(snapshot={"read"})  # type: ignore[arg-type]


@pytest.mark.anyio
@pytest.mark.parametrize("answer", [1, "yes", None, False])
async def test_one_availability_rule_everywhere_only_true_shows_a_tool(answer: Any) -> None:
    odd = define_tool(
        name="odd", description="d", schema={}, execute=_answer("x"), is_available=lambda: answer
    )
    registry = ToolRegistry()
    registry.register(odd)
    snapshot = ToolSnapshot.of([odd])
    (outcome,) = await registry.execute_parallel(
        [ToolCall(id="1", name="odd")], ToolContext(session_id="s")
    )
    assert registry.definitions() == []
    assert registry.available() == []
    assert snapshot.definitions() == []
    assert isinstance(outcome.result, Err)
    assert outcome.result.reason == "unavailable"


def test_an_async_availability_check_is_refused_at_definition() -> None:
    async def check() -> bool:
        return True

    with pytest.raises(ToolDefinitionError, match="cannot be async"):
        define_tool(name="a", description="d", schema={}, execute=_answer("x"), is_available=check)  # type: ignore[arg-type]


def _answer(text: str) -> Any:
    async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return Ok(text)

    return execute
