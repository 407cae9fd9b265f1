"""A function's model-visible parameters, as ``@tool`` reads them from its signature.

Each parameter's name, annotation, default and docstring description; the `ToolContext`
parameter (injected, hidden from the model) is named apart. What no schema could describe is
refused with a `ToolDefinitionError` naming the function and the parameter: ``*args``,
``**kwargs`` and positional-only parameters, a parameter without a type annotation (it would
accept anything unannounced), and a docstring entry for a parameter that does not exist (a
renamed parameter whose description silently went missing).
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable
from typing import Any

from toolwire.context import ToolContext
from toolwire.docstrings import DocstringStyle, parse_docstring
from toolwire.errors import ToolDefinitionError
from toolwire.hints import plain_hints

__all__ = ["Param", "inspect_parameters"]


@dataclasses.dataclass(frozen=True, slots=True)
class Param:
    """One model-visible parameter: name, annotation, default (or ``inspect.Parameter.empty``)
    and the docstring's description of it."""

    name: str
    annotation: Any
    default: Any
    description: str


def _context_param(annotation: Any) -> bool:
    if type(annotation) is type:  # a plain class (int, str, a model): no union to look into
        return annotation is ToolContext
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and (
        ToolContext in typing.get_args(annotation)
    )


def inspect_parameters(
    fn: Callable[..., Any], style: DocstringStyle
) -> tuple[str, list[Param], str | None]:
    """The summary, the model-visible parameters and the context parameter's name."""
    try:
        hints = plain_hints(fn)
        if hints is None:
            hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:
        raise ToolDefinitionError(
            f"@tool {fn.__name__!r}: cannot resolve its type hints ({exc}); import every type the "
            "signature names at module level"
        ) from None
    doc = parse_docstring(fn.__doc__, style)
    params: list[Param] = []
    ctx_name: str | None = None
    for name, default in _parameters(fn):
        if name not in hints:
            raise ToolDefinitionError(
                f"@tool {fn.__name__!r}: parameter {name!r} has no type annotation, so no schema "
                f"can describe it to the model; annotate it (e.g. `{name}: str`, or `{name}: Any` "
                "to accept any JSON value)"
            )
        annotation = hints[name]
        if _context_param(annotation):
            ctx_name = name
            continue
        params.append(Param(name, annotation, default, doc.params.get(name, "")))
    documented = set(doc.params) - {p.name for p in params} - {ctx_name}
    if documented:
        raise ToolDefinitionError(
            f"@tool {fn.__name__!r}: its docstring documents {', '.join(sorted(documented))}, "
            f"which {'is' if len(documented) == 1 else 'are'} not a parameter; fix the name in "
            "the docstring's Args section (or remove the entry)"
        )
    return doc.description, params, ctx_name


_EMPTY = inspect.Parameter.empty
_CO_VARARGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def _parameters(fn: Callable[..., Any]) -> list[tuple[str, Any]]:
    """``(name, default)`` of each parameter; read from the code object for plain functions
    (several times faster than `inspect.signature`), from the signature otherwise.

    Raises:
        ToolDefinitionError: ``*args``, ``**kwargs`` or positional-only parameters.
    """
    code = getattr(fn, "__code__", None)
    if inspect.isfunction(fn) and code is not None and not code.co_flags & _CO_VARARGS:
        if code.co_posonlyargcount:
            name = code.co_varnames[0]
            _refuse(fn, name, "positional-only")
        positional = code.co_varnames[: code.co_argcount]
        keyword = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
        defaults = fn.__defaults__ or ()
        first_default = len(positional) - len(defaults)
        out = [
            (name, defaults[i - first_default] if i >= first_default else _EMPTY)
            for i, name in enumerate(positional)
        ]
        kwdefaults = fn.__kwdefaults__ or {}
        out.extend((name, kwdefaults.get(name, _EMPTY)) for name in keyword)
        return out
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            _refuse(fn, p.name, p.kind.description)
        out.append((p.name, p.default))
    return out


def _refuse(fn: Callable[..., Any], name: str, kind: str) -> None:
    raise ToolDefinitionError(
        f"@tool {getattr(fn, '__name__', fn)!r}: parameter {name!r} is {kind}; tools take "
        "named parameters only (the model sends a JSON object)"
    )
