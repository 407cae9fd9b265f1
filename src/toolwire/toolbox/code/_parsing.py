"""Helpers every output parser shares: JSON, ANSI codes, paths, line formats, fix diffs."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from toolwire.toolbox.code._diagnostics import Diagnostic, Severity

__all__ = [
    "ANSI",
    "as_int",
    "fixed_diagnostics",
    "json_lines",
    "load_json",
    "relative_file",
    "severity_of",
    "strip_ansi",
]

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
"""An ANSI escape sequence (colours, cursor moves)."""


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences."""
    return ANSI.sub("", text)


def load_json(text: str | bytes) -> Any:
    """The JSON value ``text`` holds.

    Raises:
        ValueError: it is not JSON.
    """
    return json.loads(text)


def json_lines(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of the lines of ``text`` that hold one; other lines are skipped."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("{"):
            continue
        try:
            value = json.loads(stripped)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def relative_file(path: str, root: str) -> str:
    """``path`` (absolute, or relative to ``root``) relative to ``root`` when inside it."""
    if not path:
        return path
    if path.startswith("file://"):
        path = path[len("file://") :]
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(root, path))
    prefix = root.rstrip("/") + "/"
    return full[len(prefix) :] if full.startswith(prefix) else full


def as_int(value: Any, default: int = 0) -> int:
    """``value`` as an int (``default`` when it is not a number)."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


_SEVERITIES: dict[str, Severity] = {
    "error": "error",
    "fatal": "error",
    "failure": "error",
    "warning": "warning",
    "warn": "warning",
    "note": "info",
    "info": "info",
    "information": "info",
    "help": "info",
    "hint": "info",
}


def severity_of(value: Any, default: Severity = "error") -> Severity:
    """A checker's severity word (or eslint's 1/2) as ``error``, ``warning`` or ``info``."""
    if value == 2:
        return "error"
    if value == 1:
        return "warning"
    if isinstance(value, str):
        return _SEVERITIES.get(value.strip().lower(), default)
    return default


def fixed_diagnostics(
    before: Iterable[Diagnostic], after: Iterable[Diagnostic]
) -> tuple[Diagnostic, ...]:
    """The diagnostics of ``before`` a fix removed: ``before`` less ``after``, matched by
    ``(file, code, message)`` and counted (a fix moves lines, so lines are not compared)."""
    remaining = Counter(d.identity for d in after)
    fixed: list[Diagnostic] = []
    for diagnostic in before:
        if remaining[diagnostic.identity] > 0:
            remaining[diagnostic.identity] -= 1
        else:
            fixed.append(diagnostic)
    return tuple(fixed)
