"""Stage 4, dry-run: a synthetic result that shows what would have run, with the arguments
redacted."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pydantic_core

from toolwire.results import Ok

__all__ = ["MAX_DRY_RUN_STRING", "dry_run_result", "redact_args"]

MAX_DRY_RUN_STRING = 500
"""Strings longer than this are cut in dry-run output."""


def _redact(value: Any, redactor: Callable[[str], str] | None, depth: int) -> Any:
    if depth > 32:
        return "[nested too deeply]"
    if isinstance(value, str):
        text = redactor(value) if redactor is not None else value
        if len(text) > MAX_DRY_RUN_STRING:
            return f"{text[:MAX_DRY_RUN_STRING]}...[truncated, {len(text)} chars]"
        return text
    if isinstance(value, Mapping):
        return {str(k): _redact(v, redactor, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_redact(v, redactor, depth + 1) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return _redact(pydantic_core.to_jsonable_python(value, fallback=str), redactor, depth + 1)


def redact_args(
    args: Mapping[str, Any], redactor: Callable[[str], str] | None = None
) -> dict[str, Any]:
    """A JSON-able copy of ``args``: every string redacted, then cut to 500 characters."""
    out = _redact(args, redactor, 0)
    return out if isinstance(out, dict) else {}


def dry_run_result(
    tool_name: str, args: Mapping[str, Any], redactor: Callable[[str], str] | None = None
) -> Ok:
    """``[dry-run] <tool> would be called with: <redacted JSON>``."""
    shown = json.dumps(redact_args(args, redactor), ensure_ascii=False, sort_keys=True)
    return Ok(f"[dry-run] {tool_name} would be called with: {shown}")
