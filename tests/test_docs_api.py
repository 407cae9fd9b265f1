"""Every public name is documented: it has a docstring and the docs name it.

The public surface is the ``__all__`` of the root and of the packages the docs present as public
(``scripts/api_reference.py``'s ``PACKAGES``); docs/api.md lists each name with its docstring's
first sentence and the page that explains it, and must be what the script writes now.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "scripts" / "api_reference.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("api_reference", GENERATOR)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _public_names() -> list[tuple[str, str]]:
    packages = _generator().PACKAGES
    return [
        (package, name)
        for package in packages
        for name in importlib.import_module(package).__all__
        if not name.startswith("__")
    ]


def test_the_documented_packages_include_the_root_and_the_public_subpackages() -> None:
    assert set(_generator().PACKAGES) >= {
        "toolwire",
        "toolwire.capabilities",
        "toolwire.integrations",
        "toolwire.mcp",
        "toolwire.stores",
        "toolwire.testing",
    }


def test_every_public_name_has_a_docstring() -> None:
    generator = _generator()
    undocumented = [f"{p}.{n}" for p, n in _public_names() if not generator.docstring(p, n)]
    assert undocumented == []


def test_every_public_name_appears_in_the_docs() -> None:
    text = "\n".join(
        path.read_text(encoding="utf-8")
        for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    )
    absent = [f"{p}.{n}" for p, n in _public_names() if not re.search(rf"`{re.escape(n)}`", text)]
    assert absent == []


def test_the_api_page_is_what_the_script_writes() -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr + "(run python scripts/api_reference.py)"


def test_an_attribute_docstring_is_the_string_under_the_assignment() -> None:
    generator = _generator()
    assert generator.docstring("toolwire.mcp", "DEFAULT_HTTP_PORT").startswith("The port")
    assert generator.summary("First. Second sentence.") == "First."
    assert generator.summary("A ``x.y`` value.\n\nMore.") == "A ``x.y`` value."
