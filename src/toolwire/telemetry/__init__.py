"""OpenTelemetry for toolwire: a span per batch, a span per call, and call metrics.

```python
from toolwire.telemetry import instrument

instrument(registry)                          # the global tracer and meter providers
instrument(registry, capture_content=True)    # also arguments and results, redacted
```

or ``ToolRegistry(telemetry=ToolTelemetry(...))``. Needs ``opentelemetry-api`` (the ``otel``
extra: ``pip install 'toolwire[otel]'``); a registry without telemetry never imports it and
pays nothing for it. See ``docs/telemetry.md`` for the spans, attributes and metrics.

Rooms: ``_tracer.py`` (`ToolTelemetry`), ``_instrumenting.py`` (``instrument(registry)``),
``_instruments.py`` (the metrics), ``_content.py`` (what a span may say of the content) and
``_names.py`` (the attribute, span and metric names).
"""

from __future__ import annotations

try:
    import opentelemetry.trace  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    from toolwire.errors import ConfigurationError

    raise ConfigurationError(
        "toolwire.telemetry needs opentelemetry-api: pip install 'toolwire[otel]'"
    ) from exc

from toolwire.telemetry._content import CAPTURE_CONTENT_ENV
from toolwire.telemetry._instrumenting import instrument, uninstrument
from toolwire.telemetry._tracer import ToolTelemetry

__all__ = ["CAPTURE_CONTENT_ENV", "ToolTelemetry", "instrument", "uninstrument"]
