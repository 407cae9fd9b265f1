"""An amplifier-style view of results: ``success``, ``output``, ``error``, ``metadata``.

For code written against amplifier-core's tool contract. `to_amplifier` converts any
`ToolResult`; `AmplifierResult.get_serialized_output` is what goes into the model's context:
dicts and lists become JSON, ``Decimal`` becomes its exact string, control characters (other than
tab, newline and carriage return) and lone surrogates are stripped, and on failure the error
message is carried into the output.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pydantic_core

from toolwire.results import Err, ErrorCode, Ok, ToolResult

__all__ = ["AmplifierResult", "from_amplifier", "to_amplifier"]

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
"""Control characters other than tab, LF and CR, and lone surrogates (providers reject them)."""


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    return pydantic_core.to_jsonable_python(value, fallback=str)


def _serialise(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    elif isinstance(value, Decimal):
        text = str(value)
    elif isinstance(value, dict | list | tuple):
        text = json.dumps(value, ensure_ascii=False, default=_json_default)
    else:
        text = str(value)
    return _CONTROL.sub("", text)


@dataclass(kw_only=True)
class AmplifierResult:
    """amplifier-core's ``ToolResult`` shape.

    Attributes:
        success: Whether the tool succeeded.
        output: What the model reads (any JSON-able value; strings as they are).
        error: On failure: ``{"message": ..., "type": <code>}`` plus any detail fields.
        metadata: Extra data for the host, never shown to the model by default.
    """

    success: bool
    output: Any = None
    error: dict[str, Any] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def get_serialized_output(self) -> str:
        """The text for the model's context (see the module docstring)."""
        if not self.success or self.error:
            message = (self.error or {}).get("message") or "Unknown error"
            body = _serialise(self.output)
            head = f"Error: {_serialise(message)}"
            return f"{head}\n{body}" if body else head
        return _serialise(self.output)


def to_amplifier(result: ToolResult) -> AmplifierResult:
    """View a toolwire result the amplifier way."""
    if isinstance(result, Ok):
        metadata: dict[str, Any] = {}
        if result.cost_usd is not None:
            metadata["cost_usd"] = result.cost_usd
        output: Any = result.value
        if result.structured is not None:
            metadata["structured"] = result.structured
        return AmplifierResult(success=True, output=output, metadata=metadata)
    error: dict[str, Any] = {"message": result.error, "type": result.code.value}
    for name in ("field", "reason", "cause", "conflict_key"):
        value = getattr(result, name)
        if value is not None:
            error[name] = value
    return AmplifierResult(success=False, error=error)


def from_amplifier(result: AmplifierResult) -> ToolResult:
    """Turn an amplifier result into a toolwire one (unknown error types → execution_failed)."""
    if result.success and not result.error:
        structured = result.output if isinstance(result.output, dict) else None
        cost = result.metadata.get("cost_usd")
        return Ok(
            _serialise(result.output),
            structured=structured,
            cost_usd=float(cost) if isinstance(cost, int | float) else None,
        )
    error = result.error or {}
    try:
        code = ErrorCode(error.get("type", ErrorCode.EXECUTION_FAILED))
    except ValueError:
        code = ErrorCode.EXECUTION_FAILED
    message = str(error.get("message") or _serialise(result.output) or "Unknown error")
    return Err(
        message, code, cause=None if code != ErrorCode.EXECUTION_FAILED else error.get("type")
    )
