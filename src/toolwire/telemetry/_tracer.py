"""`ToolTelemetry`: OpenTelemetry spans and metrics for a registry's batches and calls.

One span per batch (``execute_parallel``) and, as its children, one ``execute_tool {name}``
span per call, following the GenAI semantic conventions for tool execution. The call's span
is the current span while the tool runs — on asyncio and trio, in worker threads too — so
what a tool does (an HTTP request an instrumented client makes, a query) nests under it.
Telemetry never changes a call: a failure to record is logged and the outcome goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from opentelemetry import metrics, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

import toolwire.telemetry._names as names
from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ToolContext
from toolwire.execution.tracing import BatchRunner, TracedBatch
from toolwire.results import Err
from toolwire.telemetry._content import ContentRecorder, capture_from_environment, trimmed_chars
from toolwire.telemetry._instruments import CallMetrics
from toolwire.version import __version__

__all__ = ["ToolTelemetry"]

logger = logging.getLogger("toolwire.telemetry")

B = TypeVar("B", bound=TracedBatch)
_SCOPE = "toolwire"
_MAX_NAME_CHARS = 128  # a name no tool has came from the model: keep what we record short


class ToolTelemetry:
    """Spans and metrics for every batch and call of the registries it is given to.

    Pass it as ``ToolRegistry(telemetry=ToolTelemetry())`` or call
    ``toolwire.telemetry.instrument(registry)``.

    Args:
        tracer_provider: Where spans go (the global provider by default).
        meter_provider: Where metrics go (the global provider by default).
        capture_content: Record the arguments (``gen_ai.tool.call.arguments``), the result
            (``gen_ai.tool.call.result``) and error messages, redacted. ``None`` (the default)
            reads ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``; off unless it is
            ``true``.
        secret_values: Values redacted wherever they appear in captured content, besides the
            known key formats.
        redact: Replaces the default redactor of captured content.
        max_content_chars: Captured values are cut to this many characters.
    """

    __slots__ = ("_content", "_metrics", "_tracer")

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
        capture_content: bool | None = None,
        secret_values: Iterable[str] = (),
        redact: Callable[[str], str] | None = None,
        max_content_chars: int = 4096,
    ) -> None:
        capture = capture_from_environment() if capture_content is None else capture_content
        self._content = (
            ContentRecorder(secret_values=secret_values, redact=redact, max_chars=max_content_chars)
            if capture
            else None
        )
        self._tracer = trace.get_tracer(_SCOPE, __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter(_SCOPE, __version__, meter_provider=meter_provider)
        self._metrics = CallMetrics(meter)

    @property
    def captures_content(self) -> bool:
        """Whether arguments, results and error messages are recorded (redacted)."""
        return self._content is not None

    # -- the PipelineTracer protocol ----------------------------------------------------------

    def trace_batches(self, run_batch: BatchRunner) -> BatchRunner:
        """``run_batch`` inside an ``execute_parallel`` span, current while the calls run."""
        tracer = self._tracer

        async def traced_batch(
            calls: Sequence[Any], ctx: ToolContext, *rest: Any
        ) -> list[CallOutcome]:
            with tracer.start_as_current_span(
                names.BATCH_SPAN, kind=SpanKind.INTERNAL, attributes=_batch_attributes(calls, ctx)
            ) as span:
                outcomes = await run_batch(calls, ctx, *rest)
                failed = sum(1 for outcome in outcomes if isinstance(outcome.result, Err))
                span.set_attribute(names.FAILED_CALLS, failed)
                return outcomes

        return traced_batch

    def trace_calls(
        self, answer: Callable[[B, ToolCall], Awaitable[CallOutcome]]
    ) -> Callable[[B, ToolCall], Awaitable[CallOutcome]]:
        """``answer`` inside an ``execute_tool {name}`` span, current while the tool runs."""
        tracer = self._tracer

        async def traced_call(batch: B, call: ToolCall) -> CallOutcome:
            span_name, attributes, label = _call_start(batch, call)
            with tracer.start_as_current_span(
                span_name, kind=SpanKind.INTERNAL, attributes=attributes
            ) as span:
                outcome = await answer(batch, call)
                try:
                    self._call_end(span, call, outcome, label)
                except Exception:
                    logger.exception("toolwire telemetry failed to record %s", label)
            return outcome

        return traced_call

    def _call_end(self, span: Span, call: ToolCall, outcome: CallOutcome, label: str) -> None:
        result = outcome.result
        trimmed = trimmed_chars(result)
        if trimmed:
            span.set_attribute(names.TRIMMED_CHARS, trimmed)
        if outcome.cached:
            span.set_attribute(names.CACHED, True)
        content = self._content
        if content is not None:
            span.set_attribute(names.TOOL_CALL_ARGUMENTS, content.arguments(call, outcome))
            span.set_attribute(names.TOOL_CALL_RESULT, content.result(outcome))
        if isinstance(result, Err):
            span.set_attribute(names.ERROR_TYPE, result.code.value)
            for key, value in (
                (names.ERROR_REASON, result.reason),
                (names.ERROR_CAUSE, result.cause),
            ):
                if value is not None:
                    span.set_attribute(key, value)
            message = content.text(result.error) if content is not None else None
            span.set_status(Status(StatusCode.ERROR, message))
        self._metrics.record(outcome, label, trimmed)


def _batch_attributes(calls: Sequence[Any], ctx: ToolContext) -> Mapping[str, Any]:
    attributes: dict[str, Any] = {
        names.BATCH_SIZE: len(calls),
        names.BUDGET_CHARS: ctx.result_budget_chars,
    }
    if ctx.session_id:
        attributes[names.CONVERSATION_ID] = ctx.session_id
    if ctx.dry_run:
        attributes[names.DRY_RUN] = True
    return attributes


def _call_start(batch: TracedBatch, call: ToolCall) -> tuple[str, dict[str, Any], str]:
    """The span's name, its first attributes, and the tool's label for metrics (its name when
    a tool has it, else ``_OTHER``)."""
    name = call.name if type(call.name) is str else repr(call.name)
    attributes: dict[str, Any] = {
        names.OPERATION_NAME: names.EXECUTE_TOOL,
        names.TOOL_NAME: name[:_MAX_NAME_CHARS],
        names.TOOL_CALL_ID: str(call.id)[:_MAX_NAME_CHARS],
        names.TOOL_TYPE: "extension" if name.startswith("mcp__") else "function",
    }
    try:
        entry = batch.lookup(name)
    except Exception:  # a lookup that breaks is the pipeline's to answer, not ours
        entry = None
    if entry is None:
        return names.EXECUTE_TOOL, attributes, names.OTHER_TOOL
    attributes[names.TOOL_DESCRIPTION] = entry.tool.description
    return f"{names.EXECUTE_TOOL} {name}", attributes, name
