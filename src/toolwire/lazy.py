"""`lazy_exports`: a package's names imported from their modules on first use (PEP 562).

A package that exports names from heavy modules lists them in a table, ``{name: module}``, and
sets its ``__getattr__`` and ``__dir__`` from it; importing the package then imports none of
those modules, and the first use of a name imports its module and keeps the value.

`publish` gives a class or function the public path of the package that exports it
(``toolwire`` rather than ``toolwire.results``), as httpx does: reprs, docs and pickles then show
the path a user imports. A package passes ``public_module`` to `lazy_exports` to publish its lazy
names on first use.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import typing
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_exports", "publish"]


def publish(value: object, module: str) -> None:
    """Set ``value.__module__`` to ``module`` when ``value`` is a toolwire class or function.

    A class's own annotations are resolved first, in the module that defines it: afterwards
    `typing.get_type_hints` looks names up in ``module``, which does not hold ``Mapping`` or a
    field's type. A class whose hints did not resolve before keeps its strings (they fail as
    before). Anything else (a type alias, a constant, another package's object) is left alone.
    """
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return
    home = getattr(value, "__module__", None)
    if not isinstance(home, str) or home == module or not home.startswith("toolwire."):
        return
    if inspect.isclass(value) and "__annotations__" in vars(value):
        value.__annotations__ = _resolved(value, vars(value)["__annotations__"])
    value.__module__ = module


def _resolved(cls: type, own: Mapping[str, Any]) -> dict[str, Any]:
    """``cls``'s own annotations evaluated where ``cls`` is defined; one that cannot be (a name
    imported only under ``TYPE_CHECKING``) stays a string, as unresolvable as before."""
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except (NameError, TypeError, AttributeError):
        hints = {}
        namespace = dict(vars(sys.modules[cls.__module__]))
        for name, hint in own.items():
            if isinstance(hint, str):
                try:
                    hints[name] = eval(hint, namespace, dict(vars(cls)))
                except Exception:  # left as written: it fails later, as it did
                    continue
    return {name: hints.get(name, hint) for name, hint in own.items()}


def lazy_exports(
    package: str,
    table: Mapping[str, str],
    namespace: MutableMapping[str, Any],
    *,
    public_module: str | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for the names of ``table``.

    Args:
        package: The package's name, for the message of an unknown name.
        table: Each lazy name and the module that defines it.
        namespace: The package's ``globals()``; a name, once imported, is kept there.
        public_module: When given, each name is `publish`-ed as this module's on first use.
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        if public_module is not None:
            publish(value, public_module)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
