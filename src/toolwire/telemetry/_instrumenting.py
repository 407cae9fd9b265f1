"""``instrument(registry)``: turn telemetry on (or off) for a registry already built."""

from __future__ import annotations

from typing import Any

from toolwire.registry import ToolRegistry
from toolwire.telemetry._tracer import ToolTelemetry

__all__ = ["instrument", "uninstrument"]


def instrument(
    registry: ToolRegistry, telemetry: ToolTelemetry | None = None, **options: Any
) -> ToolTelemetry:
    """Trace ``registry``'s batches and calls from now on; returns the `ToolTelemetry` used.

    Args:
        registry: A registry built any way (``ToolRegistry(...)``, ``create_registry(...)``).
        telemetry: The telemetry to use; by default one built from ``options``.
        **options: `ToolTelemetry`'s keyword arguments (``tracer_provider``,
            ``capture_content``, ...), when ``telemetry`` is not given.

    Raises:
        TypeError: both ``telemetry`` and ``options`` were given, or an unknown option.
    """
    if telemetry is not None and options:
        raise TypeError("instrument() takes telemetry= or ToolTelemetry options, not both")
    chosen = telemetry if telemetry is not None else ToolTelemetry(**options)
    registry.use_telemetry(chosen)
    return chosen


def uninstrument(registry: ToolRegistry) -> None:
    """Stop tracing ``registry`` (batches already running finish as they started)."""
    registry.use_telemetry(None)
