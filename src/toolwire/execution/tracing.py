"""`PipelineTracer`: what may wrap a registry's batches and calls (OpenTelemetry does).

A registry with a tracer builds its entry points once, when the tracer is set: the batch runner
and the per-call step are the tracer's wrappers around the plain ones. Without a tracer they are
the plain ones, so tracing costs nothing on a registry that does not use it (no check per batch
or per call). Nothing here imports a tracing library; `toolwire.telemetry` implements the
protocol with OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeAlias, TypeVar

from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ToolContext
from toolwire.execution.gates import RegisteredTool

__all__ = ["BatchRunner", "PipelineTracer", "TracedBatch"]

BatchRunner: TypeAlias = Callable[..., Coroutine[Any, Any, list[CallOutcome]]]
"""``run_batch(calls, ctx, admission, turn_attachments)``: one outcome per call."""


class TracedBatch(Protocol):
    """What a tracer reads of the batch a call belongs to."""

    @property
    def ctx(self) -> ToolContext:
        """The caller's context (session, turn)."""
        ...

    @property
    def lookup(self) -> Callable[[str], RegisteredTool | None]:
        """Finds a registered tool by name."""
        ...


B = TypeVar("B", bound=TracedBatch)


class PipelineTracer(Protocol):
    """Wraps a registry's batch runner and its per-call step, once, when it is set."""

    def trace_batches(self, run_batch: BatchRunner) -> BatchRunner:
        """A runner that does what ``run_batch`` does inside a batch span."""
        ...

    def trace_calls(
        self, answer: Callable[[B, ToolCall], Awaitable[CallOutcome]]
    ) -> Callable[[B, ToolCall], Awaitable[CallOutcome]]:
        """A step that answers one call as ``answer`` does, inside a call span that is the
        current span while the tool runs."""
        ...
