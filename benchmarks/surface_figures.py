"""The public surface's figures, as issue 24 measured them, read from the source (nothing imported).

- modules: every ``.py`` under ``src/toolwire``; private: a dotted path with a ``_name`` part
  (``__init__`` and ``__main__`` are not private);
- names importable: the entries of the ``__all__`` of each public module (every top-level public
  name when a module has no ``__all__``), summed, and the modules they come from;
- names in two or more ``__all__``: distinct names listed by at least two modules' ``__all__``.

    python benchmarks/surface_figures.py [SRC_DIR]   # default: this checkout's src/toolwire
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[1] / "src" / "toolwire"


def module_name(path: Path, root: Path) -> str:
    """``toolwire.a.b`` for ``root/a/b.py`` (a package's ``__init__`` is the package)."""
    parts = ["toolwire", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_private(name: str) -> bool:
    """Whether a part of the dotted ``name`` starts with one underscore (``__main__`` does not)."""
    return any(part.startswith("_") and not part.startswith("__") for part in name.split("."))


def exported(tree: ast.Module) -> list[str]:
    """The module's ``__all__`` literal, or its top-level public names when it has none."""
    for statement in tree.body:
        target = statement.target if isinstance(statement, ast.AnnAssign) else None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
        if isinstance(target, ast.Name) and target.id == "__all__" and statement.value is not None:
            value = statement.value  # type: ignore[union-attr]
            if isinstance(value, ast.List | ast.Tuple):
                return [e.value for e in value.elts if isinstance(e, ast.Constant)]
    names: list[str] = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(statement.name)
        elif isinstance(statement, ast.Assign):
            names += [t.id for t in statement.targets if isinstance(t, ast.Name)]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.append(statement.target.id)
    return [name for name in names if not name.startswith("_")]


def figures(root: Path) -> dict[str, int]:
    """The figures for the package whose source is ``root``."""
    modules = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    private = [name for name in modules if is_private(name)]
    lists: dict[str, list[str]] = {}
    with_all: Counter[str] = Counter()
    for name, path in modules.items():
        if is_private(name):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lists[name] = exported(tree)
        if any(
            isinstance(s, ast.Assign | ast.AnnAssign) and "__all__" in ast.unparse(s).split("=")[0]
            for s in tree.body
        ):
            with_all.update(set(lists[name]))
    return {
        "modules": len(modules),
        "private modules": len(private),
        "names importable": sum(len(names) for names in lists.values()),
        "modules they come from": sum(1 for names in lists.values() if names),
        "names in two or more __all__": sum(1 for count in with_all.values() if count >= 2),
    }


def main(argv: list[str]) -> int:
    """Print the figures of ``argv[0]`` (default: this checkout)."""
    root = Path(argv[0]) if argv else DEFAULT
    for label, value in figures(root).items():
        print(f"{label:>30}: {value:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
