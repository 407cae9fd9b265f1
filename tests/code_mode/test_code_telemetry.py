"""An inner call's span is a child of the program's: one trace from the model's call down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from code_helpers import ctx, value_of
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.code_mode import run_code_tool
from toolwire.decorator import tool
from toolwire.registry import ToolRegistry
from toolwire.stores._sqlite import SqliteKeyValueBackend
from toolwire.telemetry import ToolTelemetry

pytestmark = pytest.mark.anyio


@tool
async def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@pytest.fixture
def exporter() -> Iterator[tuple[InMemorySpanExporter, ToolTelemetry]]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    telemetry = ToolTelemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
    yield spans, telemetry
    tracer_provider.shutdown()
    meter_provider.shutdown()


def _ancestors(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> list[str]:
    names = []
    parent = span.parent
    while parent is not None and parent.span_id in by_id:
        found = by_id[parent.span_id]
        names.append(found.name)
        parent = found.parent
    return names


async def test_inner_call_spans_are_children_of_the_run_code_span(
    tmp_path: Path, exporter: tuple[InMemorySpanExporter, ToolTelemetry]
) -> None:
    spans, telemetry = exporter
    kv = SqliteKeyValueBackend(tmp_path / "kv.db")
    registry = ToolRegistry(
        backends=CapabilityBackends(kv_store_factory=kv.scoped, processes=None),
        reducers=None,
        telemetry=telemetry,
    )
    registry.register(add)
    registry.register(run_code_tool(registry))
    code = "import asyncio\nawait asyncio.gather(add(a=1, b=2), add(a=3, b=4))"
    outcome = await registry.execute("run_code", {"code": code}, ctx())
    assert value_of(outcome) == ["3", "7"]
    finished = list(spans.get_finished_spans())
    by_id = {span.context.span_id: span for span in finished}
    inner = [span for span in finished if span.name == "execute_tool add"]
    assert len(inner) == 2
    for span in inner:
        assert "execute_tool run_code" in _ancestors(span, by_id)
    await registry.aclose()
