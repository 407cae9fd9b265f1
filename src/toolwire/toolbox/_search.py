"""``search_files`` (toolset ``file``): a plain-substring search over text files.

The walk starts at ``path`` (default: the working directory), goes at most 12 directories
deep, and skips version-control, dependency, cache and build folders (`SKIPPED_DIRS`), binary
files and files over 2 MiB. A link is searched as the file it points to when that is in reach,
and never walked into as a directory, so a link loop cannot trap the walk. Only regular files
are opened: named pipes, sockets and devices (which would block or never end) are skipped, and
the answer ends with how many were skipped and what they were. Unreadable entries are skipped
silently.

When the exact pattern matches nowhere, two probes run over the same lines: case-insensitive,
then whitespace-collapsed (runs of spaces and tabs become one space). The first probe with hits
is answered, with a line that says the exact pattern did not match and which probe did.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from toolwire.capabilities import fs_reach
from toolwire.capabilities.seams import ScopedFs
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tool_options import ToolOptions
from toolwire.toolbox._common import display_path, missing_seam, refused, resolve_target
from toolwire.toolbox._file_stats import look, unreadable_kind
from toolwire.toolbox._filetypes import is_binary
from toolwire.tools import ToolAnnotations

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_RESULTS_LIMIT",
    "SKIPPED_DIRS",
    "search_files",
]

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Files larger than this are skipped."""
MAX_DEPTH = 12
"""Directories below the start that are still walked."""
MAX_RESULTS_LIMIT = 200
"""The largest ``max_results`` honoured."""
SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".bzr", "_darcs", ".jj",
        "node_modules", "bower_components", ".venv", "venv", "env", ".tox", ".nox",
        "site-packages", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
        ".hypothesis", "dist", "build", "target", "coverage", "htmlcov", ".next", ".nuxt",
        ".turbo", ".parcel-cache", ".gradle", ".idea", ".toolwire", "vendor",
    }
)  # fmt: skip
"""Folder names never walked into: version control, dependencies, caches, build output."""

_LINE_PREVIEW = 200
_BLANKS = re.compile(r"[ \t]+")


def _collapse(text: str) -> str:
    return _BLANKS.sub(" ", text).strip()


@dataclass(slots=True)
class _Probe:
    label: str
    matches: Callable[[str], bool]
    hits: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Walk:
    fs: ScopedFs
    glob: str | None
    probes: list[_Probe]
    limit: int
    working_dir: str
    files_searched: int = 0
    not_files: dict[str, int] = field(default_factory=dict)
    """What was skipped for not being a regular file, by description ("a socket"), in order."""

    def full(self) -> bool:
        return len(self.probes[0].hits) >= self.limit

    def wants(self, name: str, relative: str) -> bool:
        if self.glob is None:
            return True
        pattern = self.glob
        return fnmatch.fnmatchcase(relative if "/" in pattern else name, pattern)

    async def search_file(self, path: str) -> None:
        try:
            info = await look(self.fs, path)
            what = unreadable_kind(info)
            if what is not None:
                if info.kind != "directory":  # a link to a directory: not walked, not counted
                    self.not_files[what] = self.not_files.get(what, 0) + 1
                return
            if not info.exists or info.size > MAX_FILE_BYTES:
                return
            data = await self.fs.read_bytes(path)
        except (OSError, CapabilityError):
            return
        if len(data) > MAX_FILE_BYTES or is_binary(data):
            return
        self.files_searched += 1
        shown = display_path(path, self.working_dir)
        text = data.decode("utf-8", errors="replace")
        for number, line in enumerate(text.split("\n"), start=1):
            for probe in self.probes:
                if len(probe.hits) < self.limit and probe.matches(line):
                    probe.hits.append(f"{shown}:{number}: {_clip(line.strip())}")

    async def walk(self, directory: str, relative: str, depth: int) -> None:
        try:
            entries = await self.fs.list_entries(directory)
        except (OSError, CapabilityError):
            return
        for entry in entries:
            if self.full():
                return
            path = f"{directory.rstrip('/')}/{entry.name}"
            rel = f"{relative}{entry.name}"
            if entry.is_dir:
                if entry.name not in SKIPPED_DIRS and depth < MAX_DEPTH:
                    await self.walk(path, rel + "/", depth + 1)
            elif self.wants(entry.name, rel):
                await self.search_file(path)


def _clip(line: str) -> str:
    return line if len(line) <= _LINE_PREVIEW else line[: _LINE_PREVIEW - 1] + "…"


def _probes(pattern: str) -> list[_Probe]:
    folded = pattern.casefold()
    collapsed = _collapse(pattern)
    return [
        _Probe("exact", lambda line: pattern in line),
        _Probe("case-insensitive", lambda line: folded in line.casefold()),
        _Probe(
            "whitespace-collapsed", lambda line: bool(collapsed) and collapsed in _collapse(line)
        ),
    ]


def _skipped(not_files: dict[str, int]) -> str:
    """``Skipped 3 entries that are not regular files: 2 named pipes (FIFO), 1 socket.``"""
    counts = []
    for what, count in not_files.items():
        noun = what.split(" ", 1)[1]  # without its article
        if count > 1:
            word, _, rest = noun.partition(" (")
            noun = f"{word}s" + (f" ({rest}" if rest else "")
        counts.append(f"{count} {noun}")
    total = sum(not_files.values())
    entries = "1 entry that is not" if total == 1 else f"{total} entries that are not"
    files = "a regular file" if total == 1 else "regular files"
    return f"Skipped {entries} {files}: {', '.join(counts)}."


def _answer(pattern: str, root: str, walk: _Walk) -> str:
    text = _matches(pattern, root, walk)
    if not walk.not_files:
        return text
    joint = " " if text.startswith("No matches") else "\n\n"
    return text + joint + _skipped(walk.not_files)


def _matches(pattern: str, root: str, walk: _Walk) -> str:
    chosen = next((p for p in walk.probes if p.hits), None)
    if chosen is None:
        return f'No matches for "{pattern}" in {walk.files_searched} files under {root}.'
    count = len(chosen.hits)
    noun = "match" if count == 1 else "matches"
    more = " (the limit; there may be more — narrow path or glob)" if count >= walk.limit else ""
    if chosen.label == "exact":
        head = f'{count} {noun} for "{pattern}" under {root}{more}:'
    else:
        head = (
            f'No exact match for "{pattern}"; a {chosen.label} search found {count} {noun} '
            f"under {root}{more}:"
        )
    return head + "\n\n" + "\n".join(chosen.hits)


@tool(
    capabilities=[fs_reach(read="from-personality")],
    options=ToolOptions(
        toolset="file",
        max_result_chars=20_000,
        output_is_untrusted=True,
        annotations=ToolAnnotations(
            title="Search files", read_only=True, idempotent=True, open_world=False
        ),
    ),
)
async def search_files(
    ctx: ToolContext,
    pattern: str,
    path: str | None = None,
    glob: str | None = None,
    max_results: int = 50,
) -> ToolResult:
    """Find lines containing `pattern` (a plain substring, not a regex) in text files.

    Answers `<file>:<line>: <text>` lines. Skips .git, node_modules, build and cache folders,
    binary files and files over 2 MiB. With no exact match it retries case-insensitively, then
    with whitespace collapsed, and says which one matched.

    Args:
        pattern: The text to find.
        path: A directory or file to search (default: the working directory).
        glob: Only files whose name matches, e.g. `*.py` (with a `/`, the relative path).
        max_results: At most this many lines (1-200).
    """
    fs = ctx.scoped_fs
    if fs is None:
        return missing_seam("search_files", "file access")
    if not pattern:
        return Err(
            "pattern is empty; give the text to find", ErrorCode.INPUT_INVALID, field="pattern"
        )
    root = resolve_target(path or ctx.working_dir, ctx.working_dir)
    if isinstance(root, Err):
        return root
    limit = min(max(max_results, 1), MAX_RESULTS_LIMIT)
    walk = _Walk(
        fs=fs, glob=glob or None, probes=_probes(pattern), limit=limit, working_dir=ctx.working_dir
    )
    try:
        if not await fs.exists(root):
            return Err(
                f"Cannot search {root}: no such file or directory", ErrorCode.EXECUTION_FAILED
            )
        await fs.list_entries(root)
        is_directory = True
    except CapabilityError as exc:
        return refused(exc)
    except NotADirectoryError:
        is_directory = False
    except OSError as exc:
        return Err(f"Cannot search {root}: {exc.strerror or exc}", ErrorCode.EXECUTION_FAILED)
    if is_directory:
        await walk.walk(root, "", 0)
    else:
        await walk.search_file(root)
    return Ok(_answer(pattern, root, walk))
