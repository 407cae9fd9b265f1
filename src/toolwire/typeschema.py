"""JSON Schema for parameter types: a fast path for common types, pydantic for the rest.

The fast path covers what tool signatures mostly use (``str``, ``int``, ``float``, ``bool``,
``None``, ``Any``, lists, sets, tuples, dicts with string keys, ``Optional``/unions and
``Literal``) and produces the same schema pydantic would. Anything else (models, dataclasses,
TypedDicts, enums, ``Annotated`` constraints) returns ``None`` so the caller asks pydantic.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping, MutableSequence, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Literal, Union, get_args, get_origin

__all__ = ["fast_type_schema"]

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    Any: {},
}
_ARRAYS = (list, Sequence, MutableSequence, Iterable)
_SETS = (set, frozenset, AbstractSet)
_LITERAL_TYPES = {str: "string", int: "integer", bool: "boolean", float: "number"}


def fast_type_schema(annotation: Any) -> dict[str, Any] | None:
    """The JSON Schema of ``annotation``, or ``None`` when pydantic must build it."""
    scalar = _SCALARS.get(annotation)
    if scalar is not None:
        return dict(scalar)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in _ARRAYS or annotation in _ARRAYS:
        return _array(args[0] if args else Any)
    if origin in _SETS or annotation in _SETS:
        schema = _array(args[0] if args else Any)
        if schema is not None:
            schema["uniqueItems"] = True
        return schema
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _array(args[0])
    if origin in (dict, Mapping) or annotation in (dict, Mapping):
        return _object(args)
    if origin in (Union, types.UnionType):
        return _union(args)
    if origin is Literal:
        return _literal(args)
    return None


def _array(item: Any) -> dict[str, Any] | None:
    items = fast_type_schema(item)
    if items is None:
        return None
    return {"type": "array", "items": items} if items else {"type": "array", "items": {}}


def _object(args: tuple[Any, ...]) -> dict[str, Any] | None:
    if not args:
        return {"type": "object", "additionalProperties": True}
    if len(args) != 2 or args[0] is not str:  # dict[str] and friends: pydantic decides
        return None
    values = fast_type_schema(args[1])
    if values is None:
        return None
    return {"type": "object", "additionalProperties": values if values else True}


def _union(args: tuple[Any, ...]) -> dict[str, Any] | None:
    options = []
    for arg in args:
        if arg is type(None):
            continue
        schema = fast_type_schema(arg)
        if schema is None:
            return None
        if schema not in options:  # pydantic drops branches that render the same
            options.append(schema)
    if type(None) in args:
        options.append({"type": "null"})  # pydantic puts null last, wherever the union has it
    return options[0] if len(options) == 1 else {"anyOf": options}


def _literal(args: tuple[Any, ...]) -> dict[str, Any] | None:
    kinds = {type(value) for value in args}
    if not args or len(kinds) != 1 or next(iter(kinds)) not in _LITERAL_TYPES:
        return None
    if len(args) == 1:
        return {"const": args[0], "type": _LITERAL_TYPES[type(args[0])]}
    return {"enum": list(args), "type": _LITERAL_TYPES[type(args[0])]}
