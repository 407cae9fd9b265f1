"""Shared pieces of the provider formats: tool specs, response plumbing, presenting."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

from toolwire.calls import CallOutcome
from toolwire.errors import FormatError
from toolwire.tools import Tool

__all__ = [
    "FormatError",
    "Present",
    "ToolLookup",
    "ToolSpec",
    "callers_of",
    "canonical_json",
    "copy_schema",
    "present_outcomes",
    "to_plain",
    "tool_specs",
    "typed_items",
]

Present: TypeAlias = Callable[[CallOutcome], str]
"""Turns an outcome into the text the model reads."""


class ToolLookup(Protocol):
    """Anything with ``get(name)``: a ``dict`` of tools, a `ToolSnapshot`, a ``ToolRegistry``."""

    def get(self, name: str, /) -> Tool | None:
        """The tool called ``name``, or ``None``."""
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolSpec:
    """What every API needs to describe a tool: name, description, JSON Schema."""

    name: str
    description: str
    schema: Mapping[str, Any]


_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "parametersJsonSchema", "schema")


def _spec_from_mapping(index: int, item: Mapping[str, Any]) -> ToolSpec:
    if item.get("type") == "function" and isinstance(item.get("function"), Mapping):
        item = item["function"]  # an OpenAI Chat definition
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise FormatError(f"tool definition at index {index} has no 'name'")
    schema: Any = next((item[key] for key in _SCHEMA_KEYS if key in item), None)
    if schema is None:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, Mapping):
        raise FormatError(f"tool definition {name!r}: the parameters schema must be an object")
    description = item.get("description") or ""
    if not isinstance(description, str):
        raise FormatError(f"tool definition {name!r}: 'description' must be a string")
    return ToolSpec(name=name, description=description, schema=schema)


def tool_specs(tools: Sequence[Tool] | Sequence[Mapping[str, Any]]) -> list[ToolSpec]:
    """Normalise tools or definition mappings (``name``, ``description``, ``parameters``).

    Mappings may carry the schema as ``parameters``, ``input_schema``, ``inputSchema`` or
    ``parametersJsonSchema``, or be OpenAI Chat ``{"type": "function", "function": {...}}``.

    Raises:
        FormatError: An item is neither a `Tool` nor a definition mapping.
    """
    specs: list[ToolSpec] = []
    for index, item in enumerate(tools):
        if isinstance(item, Tool):
            specs.append(ToolSpec(name=item.name, description=item.description, schema=item.schema))
        elif isinstance(item, Mapping):
            specs.append(_spec_from_mapping(index, item))
        else:
            raise FormatError(
                f"tool at index {index} is {type(item).__name__}; pass Tool objects or "
                "definition mappings such as registry.definitions()"
            )
    return specs


def copy_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy made of plain ``dict``/``list``, so callers may mutate what we return."""
    plain: dict[str, Any] = _plain(schema)
    return plain


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return copy.deepcopy(value)


def to_plain(response: object) -> Any:
    """A response as plain JSON data: SDK (pydantic) objects are dumped by their API names."""
    dump = getattr(response, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_none=True)
    return response


def canonical_json(value: Any) -> str:
    """Stable JSON: sorted keys, no whitespace, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def present_outcomes(
    outcomes: Sequence[CallOutcome], present: Present | None, tools: ToolLookup | None
) -> list[str]:
    """The model-facing text of each outcome, in order.

    With ``present=None`` the library presenter (`toolwire.presenting.present`) is used, given
    the tool from ``tools`` when known, so untrusted output is wrapped and secrets redacted.
    """
    if present is not None:
        return [present(outcome) for outcome in outcomes]
    from toolwire.presenting import present as library_present  # lazy: keeps imports acyclic

    return [
        library_present(outcome, tool=tools.get(outcome.name) if tools is not None else None)
        for outcome in outcomes
    ]


def typed_items(items: Iterable[object], kind: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The position and value of each mapping of ``items`` whose ``type`` is ``kind``."""
    for index, item in enumerate(items):
        if isinstance(item, Mapping) and item.get("type") == kind:
            yield index, item


def callers_of(items: Iterable[object], kind: str, id_key: str) -> dict[str, dict[str, Any]]:
    """``{call id: caller}`` of the ``kind`` items that carry a ``caller`` (programmatic tool
    calling), the id read from ``id_key``."""
    callers: dict[str, dict[str, Any]] = {}
    for _, item in typed_items(items, kind):
        caller, call_id = item.get("caller"), item.get(id_key)
        if isinstance(caller, Mapping) and isinstance(call_id, str):
            callers[call_id] = dict(caller)
    return callers
