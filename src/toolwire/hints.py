"""A function's type hints read as written when they need no evaluating.

`typing.get_type_hints` evaluates every annotation (strings, forward references, ``typing``
forms); `@tool` calls it once per tool, and a catalogue registers thousands. Annotations that
are plain classes, ``None`` or builtin generics of those (``list[str]``) mean the same read as
written, so `plain_hints` returns them without the walk, and ``None`` for anything else.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

__all__ = ["plain_annotation", "plain_hints"]


def plain_hints(fn: Callable[..., Any]) -> dict[str, Any] | None:
    """``fn``'s annotations as `typing.get_type_hints` would give them, when every one is a
    plain class, ``None`` or a builtin generic of those (``list[str]``): nothing to evaluate, so
    they are read as written (W4 registers 2,000 tools; ``get_type_hints`` walks each one).
    ``None`` when any needs evaluating (a string, a ``typing`` form, an ``Annotated``)."""
    annotations = getattr(fn, "__annotations__", None)
    if type(annotations) is not dict:
        return None
    hints: dict[str, Any] = {}
    for name, annotation in annotations.items():
        if annotation is None:
            hints[name] = type(None)
        elif plain_annotation(annotation):
            hints[name] = annotation
        else:
            return None
    return hints


def plain_annotation(annotation: Any) -> bool:
    """Whether ``annotation`` is a plain class or a builtin generic of plain classes."""
    kind = type(annotation)
    if kind is type:
        return True
    if kind is types.GenericAlias:
        return all(plain_annotation(arg) for arg in annotation.__args__)
    return False
