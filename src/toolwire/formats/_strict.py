"""Strict-mode schemas: when a tool's JSON Schema can be sent with ``strict: true``.

A schema is made strict only when that keeps its meaning: every object lists all its
properties as required, allows no extra properties (an absent ``additionalProperties``
becomes ``false``; anything else refuses), and uses only keywords the API's strict mode
supports. Optional properties are *not* rewritten into required nullable ones, because the
tool's own validator would then reject the ``null`` the model is forced to send.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from toolwire.formats._common import copy_schema

__all__ = ["Dialect", "strict_schema"]

Dialect: TypeAlias = Literal["openai", "anthropic"]

_STRUCTURE = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
        "description",
        "title",
    }
)
_KEYWORDS: dict[Dialect, frozenset[str]] = {
    "openai": _STRUCTURE
    | {
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    },
    "anthropic": _STRUCTURE | {"format", "minItems", "default"},
}
_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_MAX_DEPTH = 10
_MAX_PROPERTIES = 5000


class _NotStrict(Exception):
    """The schema cannot be strict; ``str(exc)`` says where and why."""


class _Walk:
    def __init__(self, dialect: Dialect) -> None:
        self.allowed = _KEYWORDS[dialect]
        self.dialect = dialect
        self.properties = 0

    def node(self, schema: Any, path: str, depth: int) -> None:
        if not isinstance(schema, dict):
            raise _NotStrict(f"{path}: a subschema must be an object")
        unsupported = sorted(set(schema) - self.allowed)
        if unsupported:
            raise _NotStrict(f"{path}: keyword {unsupported[0]!r} is not supported in strict mode")
        if "format" in schema and schema["format"] not in _FORMATS:
            raise _NotStrict(f"{path}: format {schema['format']!r} is not supported")
        if self.dialect == "anthropic" and schema.get("minItems", 0) not in (0, 1):
            raise _NotStrict(f"{path}: minItems above 1 is not supported")
        ref = schema.get("$ref")
        if ref is not None and not (isinstance(ref, str) and ref.startswith("#")):
            raise _NotStrict(f"{path}: only local $ref ('#/...') is supported")
        types = schema.get("type")
        type_list = types if isinstance(types, list) else [types]
        if "object" in type_list or "properties" in schema or "additionalProperties" in schema:
            self.obj(schema, path, depth)
        if "items" in schema:
            self.node(schema["items"], f"{path}.items", depth + 1)
        for index, option in enumerate(schema.get("anyOf", ())):
            self.node(option, f"{path}.anyOf[{index}]", depth + 1)
        for key in ("$defs", "definitions"):
            for name, sub in dict(schema.get(key, {})).items():
                self.node(sub, f"{path}.{key}.{name}", depth)

    def obj(self, schema: dict[str, Any], path: str, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise _NotStrict(f"{path}: nested deeper than {_MAX_DEPTH} objects")
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            raise _NotStrict(f"{path}: an object without 'properties' accepts any keys")
        extra = schema.get("additionalProperties", False)
        if extra is not False:
            raise _NotStrict(f"{path}: additionalProperties must be false (or absent)")
        schema["additionalProperties"] = False
        required = schema.get("required", [])
        missing = [name for name in properties if name not in required]
        if missing:
            raise _NotStrict(f"{path}: property {missing[0]!r} is optional")
        self.properties += len(properties)
        if self.properties > _MAX_PROPERTIES:
            raise _NotStrict(f"more than {_MAX_PROPERTIES} properties in total")
        for name, sub in properties.items():
            self.node(sub, f"{path}.{name}", depth + 1)


def strict_schema(
    schema: Mapping[str, Any], *, dialect: Dialect = "openai"
) -> tuple[dict[str, Any] | None, str]:
    """The strict form of ``schema``, or ``None`` and the reason it cannot be strict.

    The input is never mutated; the strict form is a new ``dict``.
    """
    candidate = copy_schema(schema)
    candidate.pop("$schema", None)
    if candidate.get("type") != "object":
        return None, '(root): strict mode needs a root schema with "type": "object"'
    try:
        _Walk(dialect).node(candidate, "(root)", 1)
    except _NotStrict as exc:
        return None, str(exc)
    return candidate, ""
