"""Docs point only inside the repository: a clean clone has nothing beside it.

Regression (outside check, issue 23): ``benchmarks/README.md`` sent readers to folders outside
the repository (``../shared/...``). Every relative Markdown link must resolve to a file of the
checkout, and no text may name a path that climbs out of it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        *ROOT.glob("docs/**/*.md"),
        *ROOT.glob("benchmarks/*.md"),
    ]
)
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
CLIMB = re.compile(r"(?<![\w.])\.\./(?:\.\./)*shared\b|(?<![\w.])\.\./\.\./")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve_inside_the_checkout(doc: Path) -> None:
    text = CODE.sub("", doc.read_text(encoding="utf-8"))  # a link shown as code is no link
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        resolved = (doc.parent / target).resolve()
        assert resolved.is_relative_to(ROOT), f"{doc.name} links outside the checkout: {target}"
        assert resolved.exists(), f"{doc.name} links to a missing file: {target}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_doc_names_a_folder_outside_the_checkout(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    found = [m.group() for m in CLIMB.finditer(text)]
    assert not found, f"{doc.name} names paths outside the checkout: {found}"
