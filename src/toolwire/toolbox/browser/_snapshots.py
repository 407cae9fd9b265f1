"""Reducing an accessibility snapshot: fewer characters, the same elements and refs.

A snapshot is Playwright's ARIA snapshot in its ``ai`` mode: a YAML outline of roles, names
and ``[ref=e12]`` references. The reduction drops pointer hints, shortens long text lines, and
cuts the whole at a budget, saying so and how to see the rest.
"""

from __future__ import annotations

__all__ = ["MAX_LINE_CHARS", "reduce_snapshot"]

MAX_LINE_CHARS = 300
"""A snapshot line longer than this (a long paragraph) is shortened."""
_NOISE = (" [cursor=pointer]",)


def reduce_snapshot(text: str, max_chars: int) -> tuple[str, bool]:
    """``text`` reduced and cut to ``max_chars``; whether it was cut.

    Every line keeps its role, name and ref: only pointer hints and the tails of long lines
    go. A cut falls between lines and ends with a note saying how much was left out.
    """
    lines: list[str] = []
    for raw in text.split("\n"):
        line = raw
        for noise in _NOISE:
            line = line.replace(noise, "")
        if len(line) > MAX_LINE_CHARS:
            line = line[: MAX_LINE_CHARS - 1] + "…"
        lines.append(line)
    reduced = "\n".join(lines)
    if len(reduced) <= max_chars:
        return reduced, False
    cut = reduced.rfind("\n", 0, max_chars)
    kept = reduced[: cut if cut > 0 else max_chars]
    left = reduced.count("\n", len(kept)) + (0 if cut > 0 else 1)
    note = (
        f"\n[snapshot cut: {len(kept):,} of {len(reduced):,} characters shown, {left} more "
        "lines; browser_snapshot(ref=...) shows the part under one element]"
    )
    return kept + note, True
