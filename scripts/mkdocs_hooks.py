"""MkDocs hook: the README, the changelog and the benchmarks' page become pages of the site.

They live outside ``docs/`` (GitHub shows the README at the top of the repository), so the site
adds them as generated pages and rewrites their links from the repository's layout to the
site's: ``docs/x.md`` becomes ``x.md``, ``benchmarks/README.md`` becomes ``benchmarks.md``.
A link to anything else in the repository (a source file, a script) points at the repository.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

# (file in the repository, page of the site)
PAGES = (
    ("README.md", "index.md"),
    ("CHANGELOG.md", "changelog.md"),
    ("benchmarks/README.md", "benchmarks.md"),
)
REPOSITORY = "https://github.com/toolwire/toolwire/blob/main/"
_LINK = re.compile(r"(\]\()([^)\s#]+)((?:#[^)\s]*)?\))")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:")


def site_link(target: str, source: str, root: Path) -> str:
    """Where a relative link of the repository file ``source`` points on the site."""
    if _SCHEME.match(target):
        return target
    path = (root / source).parent.joinpath(target).resolve().relative_to(root).as_posix()
    for repository_file, page in PAGES:
        if path == repository_file:
            return page
    if path == "docs" or path.startswith("docs/"):
        return path.removeprefix("docs").lstrip("/") or "index.md"
    return REPOSITORY + path


def rewrite(text: str, source: str, root: Path) -> str:
    """``text`` of ``source`` with every relative link pointing where the site has it."""
    return _LINK.sub(lambda m: m.group(1) + site_link(m.group(2), source, root) + m.group(3), text)


def on_files(files: Files, config: Any) -> Files:
    """Add the pages kept outside ``docs/``."""
    root = Path(config.config_file_path).resolve().parent
    for source, page in PAGES:
        text = rewrite((root / source).read_text(encoding="utf-8"), source, root)
        files.append(File.generated(config, page, content=text))
    return files
