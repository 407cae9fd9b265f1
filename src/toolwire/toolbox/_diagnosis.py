"""Why ``old_text`` did not match: case, whitespace, tabs vs spaces, or the nearest lines.

`explain_no_match` tries, in order, and reports the first that finds something:

1. **case**: ``old_text`` matches when case is ignored;
2. **whitespace**: it matches once runs of spaces and tabs are collapsed and line edges trimmed
   (different indentation, tabs instead of spaces, trailing blanks, CRLF line ends); the
   expected and actual lines are shown with visible whitespace (``·`` space, ``→`` tab,
   ``␍`` carriage return, ``¶`` line end);
3. **nearest lines**: up to three file lines most similar to the first line of ``old_text``.
"""

from __future__ import annotations

import difflib
import re

__all__ = ["explain_no_match", "line_of", "preview", "visible"]

_PREVIEW_CHARS = 120
_MAX_SIMILARITY_LINES = 20_000
_MIN_SIMILARITY = 0.6
_BLANKS = re.compile(r"[ \t]+")


def line_of(text: str, offset: int) -> int:
    """The 1-based line number of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1


def preview(text: str, offset: int) -> str:
    """The line holding ``offset``, trimmed, at most 120 characters."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    line = text[start : end if end != -1 else len(text)].strip()
    return line if len(line) <= _PREVIEW_CHARS else line[: _PREVIEW_CHARS - 1] + "…"


def visible(line: str) -> str:
    """``line`` with its whitespace made visible, ending in ``¶``."""
    return line.replace(" ", "·").replace("\t", "→").replace("\r", "␍") + "¶"


def _collapse(line: str) -> str:
    return _BLANKS.sub(" ", line.replace("\r", "")).strip()


def _whitespace_match(file_lines: list[str], old_lines: list[str]) -> int | None:
    """The 0-based file line where ``old_lines`` match up to whitespace, or ``None``."""
    wanted = [_collapse(line) for line in old_lines]
    count = len(wanted)
    for start in range(len(file_lines) - count + 1):
        window = [_collapse(line) for line in file_lines[start : start + count]]
        if count == 1:
            if wanted[0] and wanted[0] in window[0]:
                return start
            continue
        if (
            window[0].endswith(wanted[0])
            and window[-1].startswith(wanted[-1])
            and window[1:-1] == wanted[1:-1]
        ):
            return start
    return None


def _has_trailing_blank(line: str) -> bool:
    body = line.rstrip("\r")
    return body != body.rstrip(" \t")


def _differences(expected: list[str], actual: list[str]) -> list[str]:
    kinds: list[str] = []
    for want, have in zip(expected, actual, strict=False):
        lead_want = want[: len(want) - len(want.lstrip(" \t"))]
        lead_have = have[: len(have) - len(have.lstrip(" \t"))]
        if ("\t" in lead_want) != ("\t" in lead_have):
            kinds.append("tabs vs spaces in the indentation")
        elif lead_want != lead_have and want.strip() and have.strip():
            kinds.append("indentation width")
        if have.endswith("\r") and not want.endswith("\r"):
            kinds.append("the file has CRLF line ends")
        if _has_trailing_blank(want) != _has_trailing_blank(have):
            kinds.append("trailing whitespace")
        if want.strip(" \t\r") != have.strip(" \t\r"):
            kinds.append("spacing inside the line")
    return list(dict.fromkeys(kinds)) or ["whitespace"]


def _explain_whitespace(path: str, file_lines: list[str], old_lines: list[str]) -> str | None:
    start = _whitespace_match(file_lines, old_lines)
    if start is None:
        return None
    actual = file_lines[start : start + len(old_lines)]
    kinds = ", ".join(_differences(old_lines, actual))
    shown = ["expected (old_text):"]
    shown += [f"  {visible(line)}" for line in old_lines[:8]]
    shown.append(f"actual (file, from line {start + 1}):")
    shown += [f"  {visible(line)}" for line in actual[:8]]
    return (
        f"old_text not found in {path}, but it matches line {start + 1} if whitespace is "
        f"ignored ({kinds}). Copy the text exactly as the file has it:\n" + "\n".join(shown)
    )


def _explain_similar(path: str, file_lines: list[str], old_lines: list[str]) -> str | None:
    probe = next((line.strip() for line in old_lines if line.strip()), "")
    if not probe:
        return None
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(probe)
    scored: list[tuple[float, int]] = []
    for number, line in enumerate(file_lines[:_MAX_SIMILARITY_LINES], start=1):
        candidate = line.strip()
        if not candidate:
            continue
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() < _MIN_SIMILARITY or matcher.quick_ratio() < _MIN_SIMILARITY:
            continue
        ratio = matcher.ratio()
        if ratio >= _MIN_SIMILARITY:
            scored.append((ratio, number))
    if not scored:
        return None
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:3]
    listed = [
        f"  line {n} ({round(r * 100)}% similar): {_clip(file_lines[n - 1].strip())}"
        for r, n in best
    ]
    return (
        f"old_text not found in {path}. The closest lines to its first line are:\n"
        + "\n".join(listed)
        + "\nUse read_file to see the exact current text."
    )


def _clip(line: str) -> str:
    return line if len(line) <= _PREVIEW_CHARS else line[: _PREVIEW_CHARS - 1] + "…"


def explain_no_match(path: str, text: str, old_text: str) -> str:
    """The error message for an ``old_text`` that occurs nowhere in ``text``."""
    folded = re.search(re.escape(old_text), text, re.IGNORECASE)
    if folded is not None:
        line = line_of(text, folded.start())
        return (
            f"old_text not found in {path}, but it matches line {line} if case is ignored; "
            f"the file has: {preview(text, folded.start())}\n"
            "Copy the text with the file's exact capitalisation."
        )
    file_lines = text.split("\n")
    old_lines = old_text.split("\n")
    while len(old_lines) > 1 and not old_lines[-1].strip():
        old_lines.pop()
    return (
        _explain_whitespace(path, file_lines, old_lines)
        or _explain_similar(path, file_lines, old_lines)
        or f"old_text not found in {path}. Use read_file to see the exact current text."
    )
