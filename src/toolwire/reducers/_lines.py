"""Line selection shared by the terminal reducers: what must survive, and how gaps are shown.

A reducer marks the lines worth keeping (failure lines always, plus regions such as a pytest
``FAILURES`` section or a Python traceback) and `render_kept` joins them, replacing every run of
dropped lines with one ``... [N lines omitted] ...`` marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolwire.safety.linear_regex import LinearPattern, linear

__all__ = [
    "TRACEBACK_REGION",
    "Region",
    "is_failure_line",
    "is_warning_line",
    "line_template",
    "omitted_marker",
    "render_kept",
    "select_lines",
    "thin_similar_warnings",
]

# matched against the lower-cased line (case-insensitive regexes are several times slower)
_FAILURE_WORDS = linear(
    r"\b(?:err(?:ors?)?|fa(?:tal|il(?:ed|ing|ures?)?)|panic(?:ked)?|traceback|exception"
    r"|segmentation fault|core dumped|aborted)\b|\berr!"
)
_EXCEPTION_SUFFIX = linear(r"(?:Error|Exception|Failure)\b")
_FAILURE_SHAPES = linear(
    r"^E(?:\s|$)"  # pytest assertion detail lines
    r"|^\s*(?:✗|✕|×|✖|●)\s"  # jest / vitest failure bullets
    r"|^INTERNALERROR>"
)
_WARNING = linear(r"\bwarn(?:ings?)?\b")  # on the lower-cased line
_QUOTED = linear(r"'[^']*'|\"[^\"]*\"|‘[^’]*’|“[^”]*”|`[^`]*`")
_DIGITS = linear(r"\d+")
_SEPARATOR = linear(r"^[\s=\-_~*#─━⎯]*$")
SIMILAR_WARNINGS_KEPT = 2
"""Warnings that differ only in quoted text and numbers are kept this many times."""


_FAILURE_HINTS = ("err", "fail", "fatal", "panic", "trace", "exception", "segmentation", "dump",
                  "abort", "✗", "✕", "×", "✖", "●")  # fmt: skip


def is_failure_line(line: str) -> bool:
    """Whether ``line`` reports a failure or an error; such lines survive every reduction."""
    lowered = line.lower()
    if not line.startswith("E") and not any(hint in lowered for hint in _FAILURE_HINTS):
        return False  # cheap pre-check: none of the patterns can match
    return bool(
        _FAILURE_WORDS.search(lowered) or _FAILURE_SHAPES.search(line) or _has_exception_name(line)
    )


def _has_exception_name(line: str) -> bool:
    """A CamelCase word ending in Error/Exception/Failure (``ValueError``, ``AssertionError``)."""
    for match in _EXCEPTION_SUFFIX.finditer(line):
        start = match.start()
        while start > 0 and (line[start - 1].isalnum() or line[start - 1] == "_"):
            start -= 1
        if line[start].isupper():
            return True
    return False


def is_warning_line(line: str) -> bool:
    """Whether ``line`` is a warning (kept by install and build reductions)."""
    lowered = line.lower()
    return "warn" in lowered and bool(_WARNING.search(lowered))


def line_template(line: str) -> str:
    """``line`` with quoted text and numbers blanked: similar lines share a template."""
    return _DIGITS.sub("0", _QUOTED.sub("''", line.strip()))


def thin_similar_warnings(lines: Sequence[str], marks: list[bool]) -> None:
    """Unmark kept warning lines after the first few of each template (failures stay)."""
    seen: dict[str, int] = {}
    for index, line in enumerate(lines):
        if not marks[index] or is_failure_line(line) or not is_warning_line(line):
            continue
        template = line_template(line)
        seen[template] = seen.get(template, 0) + 1
        if seen[template] > SIMILAR_WARNINGS_KEPT:
            marks[index] = False


@dataclass(frozen=True, kw_only=True, slots=True)
class Region:
    """A block kept whole from its first line until it ends.

    Attributes:
        start: A line matching this opens the region (and is kept).
        stop: A line matching this closes the region; it is kept when ``keep_stop``.
        keep_stop: Keep the closing line.
        stop_at_dedent: Close at the first non-blank line without leading whitespace after the
            start line; that line is kept (the exception line that ends a traceback).
        max_lines: After this many lines only failure lines are kept (runaway sections).
    """

    start: LinearPattern
    stop: LinearPattern | None = None
    keep_stop: bool = False
    stop_at_dedent: bool = False
    max_lines: int = 400


TRACEBACK_REGION = Region(
    start=linear(r"^\s*Traceback \(most recent call last\):"), stop_at_dedent=True
)
"""A Python traceback, through the exception line that ends it."""


def select_lines(
    lines: Sequence[str],
    *,
    regions: Sequence[Region] = (),
    keep: Sequence[LinearPattern] = (),
    drop: Sequence[LinearPattern] = (),
    context_after: int = 0,
) -> list[bool]:
    """Mark which of ``lines`` to keep.

    Failure lines are always kept. Outside regions, a line matching ``drop`` is dropped unless
    it is a failure line; a line matching ``keep`` is kept, and a failure line also keeps the
    ``context_after`` lines that follow it.
    """
    marks = [False] * len(lines)
    active: Region | None = None
    taken = 0
    extra = 0
    for index, line in enumerate(lines):
        failure = is_failure_line(line)
        if active is not None:
            if active.stop is not None and active.stop.search(line):
                closed, active = active, None
                if closed.keep_stop:
                    marks[index] = True
                    continue
                # the closing line is judged like any other line (it may open the next region)
            elif active.stop_at_dedent and taken > 0 and line.strip() and not line[:1].isspace():
                marks[index] = True
                active = None
                continue
            else:
                taken += 1
                marks[index] = taken <= active.max_lines or failure
                continue
        started = next((region for region in regions if region.start.search(line)), None)
        if started is not None:
            active, taken = started, 0
            marks[index] = True
            continue
        if failure:
            marks[index] = True
            extra = context_after
            continue
        if any(pattern.search(line) for pattern in drop):
            extra = 0
            continue
        if any(pattern.search(line) for pattern in keep):
            marks[index] = True
            continue
        if extra > 0:
            marks[index] = True
            extra -= 1
    return marks


def omitted_marker(count: int) -> str:
    """The line that stands for ``count`` dropped lines."""
    noun = "line" if count == 1 else "lines"
    return f"... [{count} {noun} omitted] ..."


def render_kept(lines: Sequence[str], marks: Sequence[bool]) -> str:
    """Join the kept lines; each run of dropped lines becomes one `omitted_marker`.

    Dropped runs made only of blank and separator lines (``====``, ``----``) vanish without a
    marker.
    """
    out: list[str] = []
    gap: list[str] = []
    for line, kept in zip(lines, marks, strict=True):
        if not kept:
            gap.append(line)
            continue
        if gap:
            if not all(_SEPARATOR.match(part) for part in gap):
                out.append(omitted_marker(len(gap)))
            gap = []
        out.append(line)
    if gap and not all(_SEPARATOR.match(part) for part in gap):
        out.append(omitted_marker(len(gap)))
    return "\n".join(out)
