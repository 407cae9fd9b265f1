"""`lazy_exports`: a package's names imported from their modules on first use (PEP 562).

A package that exports names from heavy modules lists them in a table, ``{name: module}``, and
sets its ``__getattr__`` and ``__dir__`` from it; importing the package then imports none of
those modules, and the first use of a name imports its module and keeps the value.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, table: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for the names of ``table``.

    Args:
        package: The package's name, for the message of an unknown name.
        table: Each lazy name and the module that defines it.
        namespace: The package's ``globals()``; a name, once imported, is kept there.
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
