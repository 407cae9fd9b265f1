"""Stage 2, validate: the model's arguments against the tool's compiled validator.

A bad argument is answered ``input_invalid``, naming every bad field by its path and what was
expected, never echoing the value. A validator that breaks denies the call (fail closed).
"""

from __future__ import annotations

from typing import Any

from toolwire.results import Err, ErrorCode
from toolwire.schema import ArgsInvalid
from toolwire.tools import Tool

__all__ = ["validate_args"]


def validate_args(
    tool: Tool, raw: Any, preamble: str = "Invalid arguments"
) -> dict[str, Any] | Err:
    """The validated arguments, or the ``input_invalid`` result that explains what is wrong."""
    try:
        return tool.validator.validate(raw)
    except ArgsInvalid as exc:
        return Err(
            f"{preamble} for {tool.name}: {exc.detail}", ErrorCode.INPUT_INVALID, field=exc.field
        )
    except Exception as exc:  # a broken validator denies
        return Err(
            f"{preamble} for {tool.name}: the validator failed ({type(exc).__name__})",
            ErrorCode.INPUT_INVALID,
        )
