"""Every package below ``src/toolwire`` maps its rooms in its ``__init__`` docstring.

``docs/architecture.md`` maps the top level (``tests/test_docs_architecture.py``); below it, each
package's docstring names every module and sub-package it holds (``_private`` ones too), so
``help(toolwire.x)`` shows where things are, and names no ``x.py`` or ``x/`` that is not there.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "toolwire"

# A room named in a docstring as a file or folder: ``name.py`` or ``name/``.
WRITTEN_AS_PATH = re.compile(r"``([A-Za-z_]\w*)(?:\.py|/)``")

# Files a docstring names that are not its rooms, with why.
NOT_ROOMS: dict[str, set[str]] = {
    "tool_modules": {"tools", "helpers"},  # a user's tool files, named as examples
}


def _packages() -> list[Path]:
    return sorted(init.parent for init in PACKAGE.rglob("__init__.py") if init.parent != PACKAGE)


def _docstring(package: Path) -> str:
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    return ast.get_docstring(tree) or ""


def children(package: Path) -> set[str]:
    """The modules and sub-packages of ``package``, by name (without ``.py``)."""
    found = set()
    for path in package.iterdir():
        if path.name == "__init__.py":
            continue
        if path.suffix == ".py":
            found.add(path.stem)
        elif (path / "__init__.py").is_file():
            found.add(path.name)
    return found


def unnamed(docstring: str, names: set[str]) -> list[str]:
    """The names the docstring does not mention as a word (``x``, `x`, x.py, x/ all count)."""
    return sorted(n for n in names if not re.search(rf"(?<!\w){re.escape(n)}(?!\w)", docstring))


def named_but_absent(docstring: str, names: set[str]) -> list[str]:
    """The rooms written as ``x.py`` or ``x/`` that are not among ``names``."""
    return sorted({m.group(1) for m in WRITTEN_AS_PATH.finditer(docstring)} - names)


def _label(package: Path) -> str:
    return package.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("package", _packages(), ids=_label)
def test_the_docstring_names_every_room(package: Path) -> None:
    assert unnamed(_docstring(package), children(package)) == [], (
        f"name them in src/toolwire/{_label(package)}/__init__.py's docstring, one line each"
    )


@pytest.mark.parametrize("package", _packages(), ids=_label)
def test_the_docstring_names_no_room_that_is_gone(package: Path) -> None:
    absent = named_but_absent(_docstring(package), children(package))
    assert sorted(set(absent) - NOT_ROOMS.get(_label(package), set())) == []


def test_the_checks_see_a_missing_and_a_stale_room() -> None:
    doc = "Rooms: ``kind.py`` (the row), `seam` and scoped/; ``gone.py`` and ``old/`` moved."
    names = {"kind", "seam", "scoped", "backends", "seams"}
    assert unnamed(doc, names) == ["backends", "seams"]  # "seam" is no match for "seams"
    assert named_but_absent(doc, names) == ["gone", "old"]


def test_every_package_is_checked() -> None:
    labels = {_label(package) for package in _packages()}
    assert {"capabilities/kinds/process/sandbox/egress", "mcp/server/fast_http"} <= labels
    assert "." not in labels  # the root is docs/architecture.md's
