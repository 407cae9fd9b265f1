"""The spill pointer: the line that tells the model where a tool's full output was written.

When the terminal tool's output is over its budget it writes the whole output to a file and puts
one line in the result, ``[full output: <path> (<n> chars)]``. Reducers and the ingestion cap
must never lose that line, and must never repeat it: `split_spill_pointer` takes it out before a
rewrite and `attach_spill_pointer` puts it back once, at the end.
"""

from __future__ import annotations

from toolwire.safety.linear_regex import linear

__all__ = [
    "SPILL_POINTER_PATTERN",
    "attach_spill_pointer",
    "format_spill_pointer",
    "split_spill_pointer",
]

SPILL_POINTER_PATTERN = linear(r"^\[full output: (?P<path>.+) \((?P<chars>\d+) chars\)\][ \t]*$")
"""Matches one spill-pointer line (use with ``fullmatch`` or per line)."""

_POINTER_LINE = linear(r"(?m)^\[full output: .+ \(\d+ chars\)\][ \t]*\r?$")


def format_spill_pointer(path: str, chars: int) -> str:
    """The spill-pointer line for a full output of ``chars`` characters written to ``path``."""
    return f"[full output: {path} ({chars} chars)]"


def split_spill_pointer(text: str) -> tuple[str, str | None]:
    """Remove every spill-pointer line from ``text``.

    Returns:
        The text without pointer lines (the lines around them are kept as they were), and the
        first pointer line, stripped of trailing blanks, or ``None`` when there was none.
    """
    match = _POINTER_LINE.search(text)
    if match is None:
        return text, None
    pointer = match.group(0).rstrip()
    lines = text.split("\n")
    kept = [line for line in lines if not SPILL_POINTER_PATTERN.match(line.rstrip("\r"))]
    return "\n".join(kept), pointer


def attach_spill_pointer(text: str, pointer: str | None) -> str:
    """Append ``pointer`` on its own line unless it is ``None`` or already present."""
    if pointer is None or pointer in text.split("\n"):
        return text
    if not text:
        return pointer
    return f"{text.rstrip(chr(10))}\n{pointer}"
