"""Spans: one per batch, one per call under it, named and attributed by the GenAI conventions."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode
from otel_helpers import Otel

from toolwire import ToolContext, ToolOptions, ToolRegistry, tool
from toolwire.results import Err, ErrorCode, Ok

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])]


def _current_span_id() -> int:
    return trace.get_current_span().get_span_context().span_id


@tool
async def add(a: int, b: int) -> str:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return str(a + b)


@tool
async def span_seen_async(label: str) -> str:
    """Report the span current inside the tool.

    Args:
        label: Any text.
    """
    await anyio.sleep(0.001)  # across a real suspension
    return str(_current_span_id())


@tool
def span_seen_in_thread(label: str) -> str:
    """Report the span current inside a sync tool (it runs in a worker thread).

    Args:
        label: Any text.
    """
    return str(_current_span_id())


@tool(options=ToolOptions(timeout_s=0.05))
async def slow() -> str:
    """Never answers in time."""
    await anyio.sleep(10)
    return "late"


def _registry(otel: Otel, **options: Any) -> ToolRegistry:
    registry = ToolRegistry(reducers=None, telemetry=otel.telemetry(**options))
    registry.register_all([add, span_seen_async, span_seen_in_thread, slow])
    return registry


async def test_one_call_is_an_execute_tool_span_under_the_batch_span(otel: Otel) -> None:
    registry = _registry(otel)
    outcome = await registry.execute("add", {"a": 1, "b": 2}, ToolContext(session_id="s1"))
    assert outcome.result == Ok("3")
    call = otel.span("execute_tool add")
    batch = otel.span("execute_parallel")
    assert call.kind is SpanKind.INTERNAL
    assert call.parent is not None
    assert call.parent.span_id == batch.context.span_id
    assert dict(call.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
        "gen_ai.tool.call.id": "call_0",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": add.description,
    }
    assert call.status.status_code is StatusCode.UNSET
    assert batch.attributes is not None
    assert batch.attributes["toolwire.batch.size"] == 1
    assert batch.attributes["gen_ai.conversation.id"] == "s1"
    assert batch.attributes["toolwire.batch.failed_calls"] == 0


async def test_each_call_of_a_batch_is_current_inside_its_own_tool(otel: Otel) -> None:
    registry = _registry(otel)
    calls = [
        {"id": "a", "name": "span_seen_async", "args": {"label": "x"}},
        {"id": "b", "name": "span_seen_in_thread", "args": {"label": "y"}},
        {"id": "c", "name": "span_seen_async", "args": {"label": "z"}},
    ]
    outcomes = await registry.execute_parallel(calls, ToolContext(session_id="s"))
    batch = otel.span("execute_parallel")
    by_call_id = {
        (span.attributes or {})["gen_ai.tool.call.id"]: span
        for span in otel.spans()
        if span.name.startswith("execute_tool ")
    }
    assert sorted(by_call_id) == ["a", "b", "c"]
    for outcome in outcomes:
        span = by_call_id[outcome.tool_call_id]
        assert isinstance(outcome.result, Ok)
        assert int(outcome.result.value) == span.context.span_id  # the tool saw its own span
        assert span.parent is not None
        assert span.parent.span_id == batch.context.span_id
    assert len({span.context.trace_id for span in otel.spans()}) == 1


async def test_the_batch_span_is_a_child_of_the_callers_span(otel: Otel) -> None:
    registry = _registry(otel)
    tracer = otel.tracer_provider.get_tracer("agent")
    with tracer.start_as_current_span("agent turn") as turn:
        await registry.execute("add", {"a": 1, "b": 1}, ToolContext(session_id="s"))
    batch = otel.span("execute_parallel")
    assert batch.parent is not None
    assert batch.parent.span_id == turn.get_span_context().span_id


async def test_an_unknown_tool_is_a_generic_span_with_the_error_code(otel: Otel) -> None:
    registry = _registry(otel)
    outcome = await registry.execute("nope", {}, ToolContext(session_id="s"))
    assert isinstance(outcome.result, Err)
    span = otel.span("execute_tool")  # the model's made-up name stays out of the span name
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.tool.name"] == "nope"
    assert attributes["error.type"] == "not_available"
    assert attributes["toolwire.error.reason"] == "unknown_tool"
    assert "gen_ai.tool.description" not in attributes
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description is None  # the message is content: only on opt-in
    assert (otel.span("execute_parallel").attributes or {})["toolwire.batch.failed_calls"] == 1


async def test_invalid_arguments_and_a_timeout_carry_their_codes(otel: Otel) -> None:
    registry = _registry(otel)
    await registry.execute_parallel(
        [
            {"id": "bad", "name": "add", "args": {"a": "one"}},
            {"id": "late", "name": "slow", "args": {}},
        ],
        ToolContext(session_id="s"),
    )
    spans = {(s.attributes or {}).get("gen_ai.tool.call.id"): s for s in otel.spans()}
    assert (spans["bad"].attributes or {})["error.type"] == ErrorCode.INPUT_INVALID.value
    late = dict(spans["late"].attributes or {})
    assert late["error.type"] == "execution_failed"
    assert late["toolwire.error.cause"] == "timeout"


async def test_an_mcp_tool_is_an_extension(otel: Otel) -> None:
    registry = ToolRegistry(reducers=None, telemetry=otel.telemetry())

    @tool(name="mcp__files__read")
    async def bridged() -> str:
        """A tool an MCP server provides."""
        return "x"

    registry.register(bridged)
    await registry.execute("mcp__files__read", {}, ToolContext(session_id="s"))
    span = otel.span("execute_tool mcp__files__read")
    assert (span.attributes or {})["gen_ai.tool.type"] == "extension"


async def test_a_cut_result_says_how_many_characters_were_cut(otel: Otel) -> None:
    registry = ToolRegistry(reducers=None, telemetry=otel.telemetry())

    @tool
    async def long() -> str:
        """A long answer."""
        return "x" * 500

    registry.register(long)
    await registry.execute("long", {}, ToolContext(session_id="s", result_budget_chars=120))
    attributes = dict(otel.span("execute_tool long").attributes or {})
    assert attributes["toolwire.result.trimmed_chars"] == 380
