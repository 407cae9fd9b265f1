"""How the house is kept, as issue 24 measured it, read from the source (nothing imported).

- module lines: median and 90th percentile of the line counts of ``src/toolwire``'s modules;
- long functions: functions (and methods) over 60 lines, per 1,000 lines of code;
- docstrings: modules with a module docstring, of all modules;
- over 400: modules over 400 lines;
- folders: packages, and the modules directly under the package root;
- import edges: distinct ``toolwire`` module → ``toolwire`` module imports (``TYPE_CHECKING``
  and function-level imports included).

    python benchmarks/house_figures.py [SRC_DIR]   # default: this checkout's src/toolwire
"""

from __future__ import annotations

import ast
import statistics
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[1] / "src" / "toolwire"
LONG_FUNCTION = 60


def _module(path: Path, root: Path) -> str:
    parts = ["toolwire", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def figures(root: Path) -> dict[str, str]:
    """The figures of the package at ``root`` (a ``src/toolwire`` directory)."""
    paths = sorted(root.rglob("*.py"))
    lengths, long_functions, documented, edges = [], 0, 0, set()
    for path in paths:
        text = path.read_text(encoding="utf-8")
        lengths.append(len(text.splitlines()))
        tree = ast.parse(text)
        documented += ast.get_docstring(tree) is not None
        here = _module(path, root)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                long_functions += (node.end_lineno or node.lineno) - node.lineno + 1 > LONG_FUNCTION
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.startswith("toolwire"):
                    edges.add((here, node.module))
            elif isinstance(node, ast.Import):
                edges.update((here, a.name) for a in node.names if a.name.startswith("toolwire"))
    total = sum(lengths)
    cuts = statistics.quantiles(lengths, n=10)
    packages = sum(1 for p in root.rglob("__init__.py"))
    return {
        "modules": f"{len(paths)}",
        "lines": f"{total:,}",
        "median module lines": f"{statistics.median(lengths):.0f}",
        "p90 module lines": f"{cuts[-1]:.0f}",
        "functions over 60 lines per 1,000 lines": f"{1000 * long_functions / total:.2f}",
        "modules with a docstring": f"{documented} of {len(paths)}",
        "modules over 400 lines": f"{sum(n > 400 for n in lengths)}",
        "packages": f"{packages}",
        "modules at the package root": f"{sum(1 for p in root.glob('*.py'))}",
        "import edges": f"{len(edges):,}",
    }


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    print("| figure | value |\n| --- | ---: |")
    for name, value in figures(root).items():
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
