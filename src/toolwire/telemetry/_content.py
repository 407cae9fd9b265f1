"""What a call span may say about the call's content: redacted, capped, and only on opt-in.

Arguments and results can hold anything a model or a tool produced — file contents, keys a
tool printed — so they are recorded only when the user opts in, and then passed through the
secret redactor of `toolwire.safety._redaction` and capped in length.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolwire.calls import CallOutcome, ToolCall
from toolwire.execution.budget import truncation_marker
from toolwire.results import Ok, ToolResult
from toolwire.safety._redaction import redact_secrets

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "ContentRecorder",
    "capture_from_environment",
    "trimmed_chars",
]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The variable OpenTelemetry's GenAI instrumentations read to opt in to content capture."""

_ON = frozenset({"true", "1", "yes", "on", "span_only", "span_and_event"})
_MARKER = re.compile(r"\n\[truncated \u2014 (\d+) chars total\]\Z")


def capture_from_environment() -> bool:
    """Whether `CAPTURE_CONTENT_ENV` opts in (``true``, ``1``, ``span_only``, ...)."""
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in _ON


def trimmed_chars(result: ToolResult) -> int:
    """How many characters the output budget cut from ``result`` (0 when it was not cut)."""
    if type(result) is not Ok:
        return 0
    value = result.value
    found = _MARKER.search(value)
    if found is None:
        return 0
    kept = len(value) - len(found.group(0))
    return max(int(found.group(1)) - kept, 0)


class ContentRecorder:
    """Turns a call's arguments and result into span attribute values: redacted, capped.

    Args:
        secret_values: Values to redact wherever they appear (the keys your agent uses).
        redact: Replaces the default redactor (known key formats and ``secret_values``).
        max_chars: Each value is cut to this many characters, after redaction.
    """

    __slots__ = ("_max_chars", "_redact")

    def __init__(
        self,
        *,
        secret_values: Iterable[str] = (),
        redact: Callable[[str], str] | None = None,
        max_chars: int = 4096,
    ) -> None:
        if max_chars < 1:
            raise ValueError(f"max_content_chars must be >= 1, got {max_chars}")
        if redact is None:
            values = tuple(secret_values)

            def redact(text: str) -> str:
                return redact_secrets(text, secret_values=values).text

        self._redact = redact
        self._max_chars = max_chars

    def arguments(self, call: ToolCall, outcome: CallOutcome) -> str:
        """The arguments the tool ran with as JSON (as the model sent them when they were
        refused before validation), redacted and capped."""
        args: str | Mapping[str, Any] = outcome.args if outcome.args is not None else call.args
        text = args if isinstance(args, str) else json.dumps(args, default=str, ensure_ascii=False)
        return self.text(text)

    def result(self, outcome: CallOutcome) -> str:
        """The result's value, or its error message, redacted and capped."""
        result = outcome.result
        return self.text(result.value if isinstance(result, Ok) else result.error)

    def text(self, text: str) -> str:
        """``text`` redacted, then capped (``[truncated — N chars total]``)."""
        redacted = self._redact(text)
        if len(redacted) <= self._max_chars:
            return redacted
        return redacted[: self._max_chars] + truncation_marker(len(redacted))
