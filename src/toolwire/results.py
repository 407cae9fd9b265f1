"""Tool results: ``ToolResult = Ok | Err``, the four stable error codes, and serialisation.

A tool returns ``Ok`` with the model-readable ``value`` (and an optional ``structured`` side
payload), or ``Err`` with a message and one of four stable codes. The codes are wire literals:
``ErrorCode.STALE_WRITE == "STALE_WRITE"``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Literal, TypeAlias

__all__ = [
    "Err",
    "ErrorCode",
    "Ok",
    "ToolResult",
    "err",
    "ok",
    "result_from_dict",
    "result_to_dict",
]


class ErrorCode(StrEnum):
    """The closed set of error codes; members compare equal to their wire strings."""

    INPUT_INVALID = "input_invalid"
    """The model produced arguments that fail validation."""
    NOT_AVAILABLE = "not_available"
    """The tool is gated off: unknown, not permitted, missing backend, key or binary."""
    EXECUTION_FAILED = "execution_failed"
    """The tool failed at run time (an exception, a timeout, an abort)."""
    STALE_WRITE = "STALE_WRITE"
    """A file changed on disk since it was read; the write was refused."""


@dataclass(frozen=True, slots=True)
class Ok:
    """A successful result.

    Attributes:
        value: The text the model reads. Always present; trimmed to the per-call budget.
        structured: An optional JSON-able payload for consumers that know the tool's shape.
        cost_usd: Dollar cost attributed to this call, if any.
    """

    value: str
    structured: dict[str, Any] | None = None
    cost_usd: float | None = None
    ok: ClassVar[Literal[True]] = True


@dataclass(frozen=True, slots=True)
class Err:
    """A failed result. ``error`` goes back to the model verbatim.

    Attributes:
        error: Human-readable message for the model.
        code: One of the four stable ``ErrorCode`` values.
        field: For ``input_invalid``: the path of the (first) bad field.
        reason: For ``not_available``: a machine-readable reason, such as ``"unknown_tool"``.
        cause: For ``execution_failed``: the exception type or underlying cause.
        conflict_key: For ``STALE_WRITE``: the path whose mtime changed.
    """

    error: str
    code: ErrorCode = ErrorCode.EXECUTION_FAILED
    field: str | None = None
    reason: str | None = None
    cause: str | None = None
    conflict_key: str | None = None
    ok: ClassVar[Literal[False]] = False

    def __post_init__(self) -> None:
        if not isinstance(self.code, ErrorCode):
            object.__setattr__(self, "code", ErrorCode(self.code))


ToolResult: TypeAlias = Ok | Err
"""What every tool returns and every call resolves to."""

_new = object.__new__
_set_value, _set_structured, _set_cost = (
    Ok.__dict__[field].__set__ for field in ("value", "structured", "cost_usd")
)


def ok(
    value: str, *, structured: dict[str, Any] | None = None, cost_usd: float | None = None
) -> Ok:
    """Build a successful result (the same `Ok`, built faster than by its ``__init__``)."""
    result: Ok = _new(Ok)
    _set_value(result, value)
    _set_structured(result, structured)
    _set_cost(result, cost_usd)
    return result


def err(
    error: str,
    code: ErrorCode | str = ErrorCode.EXECUTION_FAILED,
    *,
    field: str | None = None,
    reason: str | None = None,
    cause: str | None = None,
    conflict_key: str | None = None,
) -> Err:
    """Build a failed result; ``code`` defaults to ``execution_failed``.

    Raises:
        ValueError: ``code`` is not one of the four wire codes.
    """
    return Err(
        error,
        ErrorCode(code),
        field=field,
        reason=reason,
        cause=cause,
        conflict_key=conflict_key,
    )


def result_to_dict(result: ToolResult) -> dict[str, Any]:
    """The wire shape of a result: ``{"ok": true, "value": ...}`` or ``{"ok": false, ...}``.

    Optional fields that are ``None`` are left out.
    """
    if isinstance(result, Ok):
        out: dict[str, Any] = {"ok": True, "value": result.value}
        if result.structured is not None:
            out["structured"] = result.structured
        if result.cost_usd is not None:
            out["cost_usd"] = result.cost_usd
        return out
    out = {"ok": False, "error": result.error, "code": result.code.value}
    for name in ("field", "reason", "cause", "conflict_key"):
        extra = getattr(result, name)
        if extra is not None:
            out[name] = extra
    return out


def result_from_dict(data: dict[str, Any]) -> ToolResult:
    """Parse the wire shape written by `result_to_dict`.

    Raises:
        ValueError: the dict is not a result (missing ``ok``, wrong types, unknown code).
    """
    flag = data.get("ok")
    if flag is True:
        value = data.get("value")
        if not isinstance(value, str):
            raise ValueError("an ok result needs a string 'value'")
        return Ok(value, structured=data.get("structured"), cost_usd=data.get("cost_usd"))
    if flag is False:
        message = data.get("error")
        if not isinstance(message, str):
            raise ValueError("an error result needs a string 'error'")
        return Err(
            message,
            ErrorCode(data.get("code", ErrorCode.EXECUTION_FAILED)),
            field=data.get("field"),
            reason=data.get("reason"),
            cause=data.get("cause"),
            conflict_key=data.get("conflict_key"),
        )
    raise ValueError(f"not a tool result: 'ok' must be true or false, got {json.dumps(flag)}")
