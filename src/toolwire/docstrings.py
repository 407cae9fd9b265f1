"""Parameter descriptions from docstrings: Google, NumPy and Sphinx styles.

Google style (the common case) is parsed by a small fast path; anything else, and Google
docstrings the fast path cannot read with confidence, goes to griffe.
"""

from __future__ import annotations

import inspect
import logging
import re
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

__all__ = ["DocstringStyle", "ParsedDocstring", "parse_docstring"]

DocstringStyle: TypeAlias = Literal["auto", "google", "numpy", "sphinx"]

_GOOGLE_ARGS = re.compile(r"^(Args|Arguments|Parameters|Params):\s*$", re.MULTILINE)
_GOOGLE_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises?|Examples?|Notes?|Warnings?|"
    r"Attributes|See Also|Todo|References?):[^\S\n]*$",
    re.MULTILINE,
)
_GOOGLE_ITEM = re.compile(r"^(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_NUMPY_MARK = re.compile(
    r"^\s*(Parameters|Returns|Other Parameters)\s*\n\s*-{3,}\s*$", re.MULTILINE
)
_SPHINX_MARK = re.compile(r"^\s*:(param|type|returns?|raises?)\b", re.MULTILINE)

logging.getLogger("griffe").setLevel(logging.ERROR)


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedDocstring:
    """The summary (text before the first section) and per-parameter descriptions."""

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


_SPHINX_FIELDS = (":param", ":type", ":return", ":raise")


def _detect(text: str) -> Literal["google", "numpy", "sphinx"]:
    # substring checks first (in C): most docstrings have neither mark, and the regexes,
    # anchored at every line, cost more than the rest of the parse (W4 parses 2,000)
    if "---" in text and _NUMPY_MARK.search(text):
        return "numpy"
    if any(mark in text for mark in _SPHINX_FIELDS) and _SPHINX_MARK.search(text):
        return "sphinx"
    return "google"


def _parse_google_fast(text: str) -> ParsedDocstring | None:
    """Parse a plain Google docstring; ``None`` when it needs griffe."""
    match = _GOOGLE_ARGS.search(text)
    section = _GOOGLE_SECTION.search(text)  # one scan in C, not a match per line
    # the summary ends at the first section
    description = (text if section is None else text[: section.start()]).strip()
    if match is None:
        return ParsedDocstring(description=description)
    lines = text.split("\n")
    start = text.count("\n", 0, match.start())
    params: dict[str, str] = {}
    current: str | None = None
    indent: int | None = None
    for line in lines[start + 1 :]:
        if not line.strip():
            current = None if indent is None else current
            continue
        this_indent = len(line) - len(line.lstrip())
        if this_indent == 0:
            break  # the next section (or text) starts
        if indent is None:
            indent = this_indent
        if this_indent == indent:
            item = _GOOGLE_ITEM.match(line.strip())
            if item is None:
                return None
            current = item.group(1).lstrip("*")
            params[current] = item.group(3).strip()
        elif this_indent > indent and current is not None:
            params[current] = (params[current] + " " + line.strip()).strip()
        else:
            return None
    return ParsedDocstring(description=description, params=params)


def _parse_with_griffe(text: str, style: Literal["google", "numpy", "sphinx"]) -> ParsedDocstring:
    import griffe

    sections = griffe.Docstring(text, lineno=1).parse(style)
    description_parts: list[str] = []
    params: dict[str, str] = {}
    for section in sections:
        kind = section.kind.value
        if kind == "text" and not params:
            description_parts.append(str(section.value))
        elif kind == "parameters":
            for param in section.value:
                params[param.name] = " ".join(str(param.description).split())
    return ParsedDocstring(description="\n\n".join(description_parts).strip(), params=params)


def parse_docstring(doc: str | None, style: DocstringStyle = "auto") -> ParsedDocstring:
    """Split a docstring into its summary text and parameter descriptions."""
    if not doc:
        return ParsedDocstring()
    text = inspect.cleandoc(doc)
    chosen = _detect(text) if style == "auto" else style
    if chosen == "google":
        fast = _parse_google_fast(text)
        if fast is not None:
            return fast
    return _parse_with_griffe(text, chosen)
