"""Sample tools, outcomes and an SDK-shape checker for the format tests."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import TypeAdapter

from toolwire.calls import CallOutcome
from toolwire.context import ToolContext
from toolwire.results import ErrorCode, ToolResult, err, ok
from toolwire.tools import Tool, define_tool

WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["c", "f"]},
    },
    "required": ["city", "unit"],
}

SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "default": 5}},
    "required": ["query"],
}


async def _noop(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("")


def make_tool(name: str, schema: Mapping[str, Any], description: str = "") -> Tool:
    return define_tool(
        name=name, description=description or f"{name} tool", schema=schema, execute=_noop
    )


WEATHER = make_tool("get_weather", WEATHER_SCHEMA, "Current weather for a city")
SEARCH = make_tool("search", SEARCH_SCHEMA, "Search the web")

OK_OUTCOME = CallOutcome(
    tool_call_id="call_1", name="get_weather", result=ok("18°C, clear"), duration_ms=3.0
)
ERR_OUTCOME = CallOutcome(
    tool_call_id="call_2",
    name="search",
    result=err("Unknown tool: search", ErrorCode.NOT_AVAILABLE),
    duration_ms=0.0,
)


def plain_present(outcome: CallOutcome) -> str:
    """A presenter used by most tests: the value, or ``ERR <code>: <error>``."""
    result = outcome.result
    if result.ok:
        return result.value
    return f"ERR {result.code}: {result.error}"


def _materialise(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _materialise(item) for key, item in value.items()}
    if isinstance(value, (list | tuple, Iterator)) or _is_lazy(value):
        return [_materialise(item) for item in value]
    return value


def _is_lazy(value: Any) -> bool:
    return type(value).__name__ == "ValidatorIterator"


@functools.cache
def _adapter(typed_dict: Any) -> TypeAdapter[Any]:
    return TypeAdapter(typed_dict)


def conforms(typed_dict: Any, value: Any) -> bool:
    """``value`` validates as the SDK's TypedDict and loses nothing (no unknown keys)."""
    adapter = _adapter(typed_dict)  # must outlive the lazy iterators it returns
    validated = adapter.validate_python(value)
    return bool(_materialise(validated) == _materialise(value))
