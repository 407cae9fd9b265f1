"""Metrics: call duration, errors by code, characters trimmed."""

from __future__ import annotations

import pytest
from otel_helpers import Otel

from toolwire import ToolContext, ToolRegistry, tool

pytestmark = pytest.mark.anyio


@tool
async def long(size: int) -> str:
    """Answer ``size`` characters.

    Args:
        size: How many.
    """
    return "z" * size


async def test_every_call_is_timed_and_errors_are_counted_by_code(otel: Otel) -> None:
    registry = ToolRegistry(reducers=None, telemetry=otel.telemetry())
    registry.register(long)
    ctx = ToolContext(session_id="s")
    await registry.execute_parallel(
        [
            {"id": "1", "name": "long", "args": {"size": 3}},
            {"id": "2", "name": "long", "args": {"size": "x"}},
            {"id": "3", "name": "ghost", "args": {}},
            {"id": "4", "name": "other-ghost", "args": {}},
        ],
        ctx,
    )
    durations = {
        tuple(sorted((point.attributes or {}).items())): point
        for point in otel.points("gen_ai.execute_tool.duration")
    }
    ok_key = (("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", "long"))
    assert durations[ok_key].count == 1
    assert durations[ok_key].sum >= 0
    assert sum(point.count for point in durations.values()) == 4
    errors = {
        (
            (point.attributes or {})["gen_ai.tool.name"],
            (point.attributes or {})["error.type"],
        ): point.value
        for point in otel.points("toolwire.execute_tool.errors")
    }
    assert errors == {("long", "input_invalid"): 1, ("_OTHER", "not_available"): 2}


async def test_the_characters_the_budget_cut_are_counted(otel: Otel) -> None:
    registry = ToolRegistry(reducers=None, telemetry=otel.telemetry())
    registry.register(long)
    ctx = ToolContext(session_id="s", result_budget_chars=200)
    calls = [{"id": str(i), "name": "long", "args": {"size": 150}} for i in range(2)]
    await registry.execute_parallel(calls, ctx)  # 100 characters each: 50 cut from each
    await registry.execute("long", {"size": 10}, ctx)  # nothing cut
    (point,) = otel.points("toolwire.execute_tool.trimmed_chars")
    assert point.value == 100
    assert dict(point.attributes or {}) == {"gen_ai.tool.name": "long"}
