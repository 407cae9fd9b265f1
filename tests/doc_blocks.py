"""The code blocks of the Markdown docs, and what each must do to pass the docs test.

A fenced block's language decides what is checked:

- ``python``: run, in order with the document's other Python blocks (one namespace, like a
  notebook; top-level ``await`` works) in a fresh temporary directory;
- ``json`` / ``toml``: parsed;
- no language, ``text``, ``output``: text (a diagram, a transcript) — nothing to run;
- anything else (``sh``, ``bash``, ``yaml``, ...): must carry a marker.

Markers are HTML comments on the lines just above the fence (invisible once rendered):

- ``<!-- fragment -->`` (or ``<!-- fragment: why -->``, or ```` ```python fragment ````): an
  excerpt that cannot run on its own; it is not run;
- ``<!-- tested: tests/path.py::test_name -->``: another test covers it (the file and the test
  must exist);
- ``<!-- setup ... -->``: Python run just before the block, hidden from the reader (the names
  an excerpt assumes: a registry, a context);
- ``<!-- requires: redis, postgres -->``: the services the block needs (skipped on a developer
  machine without them, a failure in CI).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["RUN", "TEXT", "Block", "blocks", "documents"]

ROOT = Path(__file__).resolve().parents[1]
RUN = frozenset({"python", "py"})
TEXT = frozenset({"", "text", "txt", "output"})
PARSED = frozenset({"json", "toml"})
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass
class Block:
    """One fenced code block."""

    path: Path
    line: int
    language: str
    flags: tuple[str, ...]
    code: str
    fragment: bool = False
    tested: str | None = None
    setup: str = ""
    requires: tuple[str, ...] = ()
    markers: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.where

    @property
    def where(self) -> str:
        """``docs/x.md:12``."""
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    """README.md and every Markdown file under docs/, found afresh each run."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of ``path``, with their markers."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening.group("fence")
        info = opening.group("info").strip().split()
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            body.append(lines[end][len(opening.group("indent")) :])
            end += 1
        block = Block(
            path=path,
            line=index + 1,
            language=(info[0] if info else "").lower(),
            flags=tuple(info[1:]),
            code="\n".join(body) + "\n",
        )
        _read_markers(block, _comments_above(lines, index))
        found.append(block)
        index = end + 1
    return found


def _comments_above(lines: list[str], fence: int) -> list[str]:
    """The HTML comments just above line ``fence`` (blank lines between are allowed)."""
    comments: list[str] = []
    end = fence - 1
    while end >= 0:
        while end >= 0 and not lines[end].strip():
            end -= 1
        if end < 0 or not lines[end].rstrip().endswith("-->"):
            break
        start = end
        while start >= 0 and "<!--" not in lines[start]:
            start -= 1
        if start < 0:
            break
        text = "\n".join(lines[start : end + 1]).strip()
        comments.insert(0, text[text.index("<!--") + 4 : -3].strip("\n"))
        end = start - 1
    return comments


def _read_markers(block: Block, comments: list[str]) -> None:
    block.fragment = "fragment" in block.flags
    for comment in comments:
        head, _, rest = comment.strip().partition("\n")
        word, colon, value = head.partition(":")
        word = word.strip().lower()
        if word == "fragment":
            block.fragment = True
        elif word == "tested" and colon:
            block.tested = value.split()[0] if value.split() else ""
        elif word == "setup":
            block.setup += (value.strip() + "\n" if colon else "") + rest + "\n"
        elif word == "requires" and colon:
            block.requires += tuple(v.strip() for v in value.split(",") if v.strip())
        else:
            continue
        block.markers.append(word)
