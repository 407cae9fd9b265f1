"""The metrics of tool calls: duration, errors by code, characters trimmed."""

from __future__ import annotations

from opentelemetry.metrics import Meter

import toolwire.telemetry._names as names
from toolwire.calls import CallOutcome
from toolwire.results import Err

__all__ = ["CallMetrics"]

_DURATION_BUCKETS_S = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
    30.0, 60.0, 120.0, 300.0,
)  # fmt: skip
"""From half a millisecond (a tool that answers at once) to the default five-minute timeout."""


class CallMetrics:
    """The three instruments, made once per `ToolTelemetry`, recorded once per call.

    - ``gen_ai.execute_tool.duration`` (histogram, ``s``): each call's wall time;
      ``gen_ai.operation.name``, ``gen_ai.tool.name`` and, on failure, ``error.type``.
    - ``toolwire.execute_tool.errors`` (counter): calls answered with an error, by
      ``gen_ai.tool.name`` and ``error.type``.
    - ``toolwire.execute_tool.trimmed_chars`` (counter, characters): what the output budget
      cut from results, by ``gen_ai.tool.name``.
    """

    __slots__ = ("_duration", "_errors", "_trimmed")

    def __init__(self, meter: Meter) -> None:
        self._duration = meter.create_histogram(
            names.CALL_DURATION,
            unit="s",
            description="Duration of tool executions.",
            explicit_bucket_boundaries_advisory=list(_DURATION_BUCKETS_S),
        )
        self._errors = meter.create_counter(
            names.CALL_ERRORS,
            unit="{call}",
            description="Tool calls answered with an error, by error code.",
        )
        self._trimmed = meter.create_counter(
            names.TRIMMED_CHARS_METRIC,
            unit="{char}",
            description="Characters of tool results cut by the output budget.",
        )

    def record(self, outcome: CallOutcome, tool_label: str, trimmed: int) -> None:
        """Record one call's outcome; ``tool_label`` is its name or ``_OTHER``."""
        result = outcome.result
        attributes = {names.OPERATION_NAME: names.EXECUTE_TOOL, names.TOOL_NAME: tool_label}
        if isinstance(result, Err):
            attributes[names.ERROR_TYPE] = result.code.value
            self._errors.add(1, {names.TOOL_NAME: tool_label, names.ERROR_TYPE: result.code.value})
        self._duration.record(outcome.duration_ms / 1000.0, attributes)
        if trimmed:
            self._trimmed.add(trimmed, {names.TOOL_NAME: tool_label})
