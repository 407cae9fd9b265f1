"""docs/architecture.md's layout names what is in the repository, and all of it."""

from __future__ import annotations

import re

from doc_blocks import ROOT, blocks

ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "src" / "toolwire"


def _layout() -> tuple[set[str], set[str]]:
    """The entries the layout block names under ``src/toolwire/``, and at the top level."""
    (layout,) = [b for b in blocks(ARCHITECTURE) if b.code.startswith("src/toolwire/")]
    inside = set(re.findall(r"^  ([\w.]+/?)\s", layout.code, re.M))
    top = set(re.findall(r"^([\w.]+/)\s", layout.code, re.M)) - {"src/toolwire/"}
    return inside, top


def test_every_entry_the_layout_names_exists() -> None:
    inside, top = _layout()
    missing = sorted(name for name in inside if not (PACKAGE / name.rstrip("/")).exists())
    missing += sorted(name for name in top if not (ROOT / name).is_dir())
    assert missing == []


def test_every_module_and_folder_of_the_package_is_named() -> None:
    inside, _ = _layout()
    present = {
        path.name + ("/" if path.is_dir() else "")
        for path in PACKAGE.iterdir()
        if path.name not in ("__pycache__", "py.typed")
    }
    assert sorted(present - inside) == []
