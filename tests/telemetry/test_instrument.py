"""Turning telemetry on and off, and what a registry without it pays (nothing)."""

from __future__ import annotations

import pytest
from otel_helpers import Otel

from toolwire import ToolContext, ToolRegistry, tool
from toolwire.execution import pipeline as pipeline_module
from toolwire.telemetry import ToolTelemetry, instrument, uninstrument

pytestmark = pytest.mark.anyio


@tool
async def ping() -> str:
    """Answer pong."""
    return "pong"


def test_a_registry_without_telemetry_runs_the_plain_pipeline() -> None:
    registry = ToolRegistry(reducers=None)
    assert registry.settings.telemetry is None
    assert registry._run_batch == registry._pipeline.run_batch
    assert registry._pipeline._answer is pipeline_module._answer


async def test_instrument_traces_an_existing_registry_and_uninstrument_stops(otel: Otel) -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(ping)
    ctx = ToolContext(session_id="s")
    await registry.execute("ping", {}, ctx)
    assert otel.spans() == []
    telemetry = instrument(
        registry, tracer_provider=otel.tracer_provider, meter_provider=otel.meter_provider
    )
    assert registry.settings.telemetry is telemetry
    await registry.execute("ping", {}, ctx)
    assert [span.name for span in otel.spans()] == ["execute_tool ping", "execute_parallel"]
    uninstrument(registry)
    await registry.execute("ping", {}, ctx)
    assert len(otel.spans()) == 2
    assert registry._pipeline._answer is pipeline_module._answer


async def test_instrument_keeps_the_registry_s_tools_and_hooks(otel: Otel) -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(ping)
    seen: list[str] = []
    registry.hooks.observe(lambda event: seen.append(event.name))
    instrument(registry, otel.telemetry())
    outcome = await registry.execute("ping", {}, ToolContext(session_id="s"))
    assert outcome.result.ok
    assert seen == ["tool:pre", "tool:post"]


def test_instrument_takes_telemetry_or_options_not_both(otel: Otel) -> None:
    with pytest.raises(TypeError, match="not both"):
        instrument(ToolRegistry(), otel.telemetry(), capture_content=True)


def test_content_capture_is_off_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    assert ToolTelemetry().captures_content is False
    assert ToolTelemetry(capture_content=True).captures_content is True


@tool
async def echo(text: str) -> str:
    """Say it back.

    Args:
        text: What to say.
    """
    if text == "boom":
        raise RuntimeError("boom")
    return text * 40


async def test_telemetry_changes_no_outcome(otel: Otel) -> None:
    calls = [
        {"id": "1", "name": "echo", "args": {"text": "hi"}},
        {"id": "2", "name": "echo", "args": {"text": "boom"}},
        {"id": "3", "name": "echo", "args": '{"text": '},
        {"id": "4", "name": "ghost", "args": {}},
        {"id": "5", "name": "ping", "args": {}},
    ]
    plain = ToolRegistry(reducers=None)
    traced = ToolRegistry(reducers=None, telemetry=otel.telemetry(capture_content=True))
    for registry in (plain, traced):
        registry.register_all([echo, ping])
    ctx = ToolContext(session_id="s", result_budget_chars=200)
    expected = await plain.execute_parallel(calls, ctx)
    got = await traced.execute_parallel(calls, ctx)
    assert [(o.tool_call_id, o.result, o.args) for o in got] == [
        (o.tool_call_id, o.result, o.args) for o in expected
    ]
    assert len(otel.spans()) == len(calls) + 1
