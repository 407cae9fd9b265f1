"""OpenTelemetry for toolwire: a span per batch, a span per call, and call metrics.

```python
from toolwire.telemetry import instrument

instrument(registry)                          # the global tracer and meter providers
instrument(registry, capture_content=True)    # also arguments and results, redacted
```

or ``ToolRegistry(telemetry=ToolTelemetry(...))``. Needs ``opentelemetry-api`` (the ``otel``
extra: ``pip install 'toolwire[otel]'``); a registry without telemetry never imports it and
pays nothing for it. See ``docs/telemetry.md`` for the spans, attributes and metrics.

Rooms: ``tracer.py`` (`ToolTelemetry`), ``instrumenting.py`` (``instrument(registry)``),
``instruments.py`` (the metrics), ``content.py`` (what a span may say of the content) and
``names.py`` (the attribute, span and metric names).
"""

from __future__ import annotations

try:
    import opentelemetry.trace  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    from toolwire.errors import ConfigurationError

    raise ConfigurationError(
        "toolwire.telemetry needs opentelemetry-api: pip install 'toolwire[otel]'"
    ) from exc

from toolwire.telemetry.content import CAPTURE_CONTENT_ENV
from toolwire.telemetry.instrumenting import instrument, uninstrument
from toolwire.telemetry.tracer import ToolTelemetry

__all__ = ["CAPTURE_CONTENT_ENV", "ToolTelemetry", "instrument", "uninstrument"]
