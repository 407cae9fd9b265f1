"""The function-definition body shared by OpenAI Chat Completions and the Responses API."""

from __future__ import annotations

from typing import Any

from toolwire.formats._common import FormatError, ToolSpec, copy_schema
from toolwire.formats._strict import strict_schema

__all__ = ["function_parts"]


def function_parts(spec: ToolSpec, strict: bool | None) -> dict[str, Any]:
    """``{name, description, parameters, strict}``; ``strict`` is always explicit.

    (The Responses API treats a missing ``strict`` as ``true``, which would reject any
    schema that is not strict-compatible.)
    """
    parameters: dict[str, Any] | None = None
    if strict is not False:
        parameters, reason = strict_schema(spec.schema, dialect="openai")
        if parameters is None and strict:
            raise FormatError(f"tool {spec.name!r} cannot use OpenAI strict mode: {reason}")
    is_strict = parameters is not None
    return {
        "name": spec.name,
        "description": spec.description,
        "parameters": parameters if parameters is not None else copy_schema(spec.schema),
        "strict": is_strict,
    }
