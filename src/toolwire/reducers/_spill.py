"""The spill pointer: the line that tells the model where a tool's full output was written.

When the terminal tool's output is over its budget it writes the output to a file and puts one
line in the result, ``[full output: <path> (<n> chars)]``. When the command wrote more than the
process runner keeps (its head and tail), the file holds only part of it and the line says so:
``[partial output: <path> (<n> chars; the command wrote <total> bytes: this file keeps <kept> of
them, its head and tail)]``. Reducers and the ingestion cap must never lose that line, and must
never repeat it: `split_spill_pointer` takes it out before a rewrite and `attach_spill_pointer`
puts it back once, at the end. The tool defuses pointer-shaped lines in a command's own output,
so the only pointer a result holds is the tool's.
"""

from __future__ import annotations

from toolwire.safety.linear_regex import linear

__all__ = [
    "SPILL_POINTER_PATTERN",
    "attach_spill_pointer",
    "format_spill_pointer",
    "split_spill_pointer",
]

SPILL_POINTER_PATTERN = linear(
    r"^\[(?:full|partial) output: (?P<path>.+) \((?P<chars>\d+) chars(?:; [^\]\n]*)?\)\][ \t]*$"
)
"""Matches one spill-pointer line, full or partial (use with ``fullmatch`` or per line)."""

_POINTER_LINE = linear(
    r"(?m)^\[(?:full|partial) output: .+ \(\d+ chars(?:; [^\]\n]*)?\)\][ \t]*\r?$"
)


def format_spill_pointer(
    path: str, chars: int, *, total_bytes: int | None = None, kept_bytes: int | None = None
) -> str:
    """The spill-pointer line for ``chars`` characters of output written to ``path``.

    With ``total_bytes`` (what the command wrote) above ``kept_bytes`` (what of it the file
    holds), the line says the file is partial and how much the command really wrote.
    """
    if total_bytes is None or kept_bytes is None or kept_bytes >= total_bytes:
        return f"[full output: {path} ({chars} chars)]"
    return (
        f"[partial output: {path} ({chars} chars; the command wrote {total_bytes} bytes: "
        f"this file keeps {kept_bytes} of them, its head and tail)]"
    )


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
