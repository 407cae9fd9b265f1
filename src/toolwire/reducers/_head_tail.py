"""The generic terminal reduction: head + tail of long output, keeping diagnostics in between.

Output of at most 8 KiB (8,192 characters) is left alone. Longer output keeps its first 40 and
last 20 lines; from the lines in between it keeps every failure line (each with up to 3 lines of
context, such as the compiler's source excerpt) and the warnings (at most 2 of each kind, where
warnings differing only in quoted text and numbers are of one kind), up to 200 lines, without
repeating identical lines. Kept lines longer than 2,000 characters are clipped.
"""

from __future__ import annotations

from toolwire.reducers._lines import (
    SIMILAR_WARNINGS_KEPT,
    is_failure_line,
    is_warning_line,
    line_template,
)

__all__ = ["HEAD_LINES", "MAX_MIDDLE_LINES", "SMALL_OUTPUT_CHARS", "TAIL_LINES", "reduce_head_tail"]

SMALL_OUTPUT_CHARS = 8192
"""Output up to this many characters is never reduced by the generic rule."""
HEAD_LINES = 40
TAIL_LINES = 20
MAX_MIDDLE_LINES = 200
"""At most this many diagnostic lines are kept from between the head and the tail."""
_CONTEXT_AFTER_FAILURE = 3
_MAX_LINE_CHARS = 2000


def reduce_head_tail(output: str) -> str | None:
    """Reduce long output to head + kept diagnostics + tail; ``None`` when it is short."""
    if len(output) <= SMALL_OUTPUT_CHARS:
        return None
    lines = output.split("\n")
    if len(lines) <= HEAD_LINES + TAIL_LINES:
        clipped = [_clip(line) for line in lines]
        return "\n".join(clipped) if clipped != lines else None
    head = lines[:HEAD_LINES]
    middle = lines[HEAD_LINES : len(lines) - TAIL_LINES]
    tail = lines[len(lines) - TAIL_LINES :]
    kept = _diagnostics(middle)
    summary = (
        f"... [reduced from {len(lines)} lines / {len(output)} chars: first {HEAD_LINES} and "
        f"last {TAIL_LINES} lines"
    )
    if kept:
        summary += f", plus {len(kept)} error/warning lines from the {len(middle)} between"
    out = [*map(_clip, head), summary + "] ..."]
    if kept:
        out.extend(kept)
        out.append("... [end of kept lines] ...")
    out.extend(map(_clip, tail))
    return "\n".join(out)


def _diagnostics(middle: list[str]) -> list[str]:
    kept: list[str] = []
    seen: set[str] = set()
    templates: dict[str, int] = {}
    context = 0
    for line in middle:
        if len(kept) >= MAX_MIDDLE_LINES:
            kept.append(f"... [further error/warning lines omitted; limit {MAX_MIDDLE_LINES}] ...")
            break
        failure = is_failure_line(line)
        if not failure and is_warning_line(line):
            template = line_template(line)
            templates[template] = templates.get(template, 0) + 1
            context = 0
            if templates[template] > SIMILAR_WARNINGS_KEPT:
                continue
        if failure or is_warning_line(line):
            context = _CONTEXT_AFTER_FAILURE if failure else 0
            if line not in seen:
                seen.add(line)
                kept.append(_clip(line))
            continue
        if context > 0 and line.strip():
            context -= 1
            kept.append(_clip(line))
        else:
            context = 0
    return kept


def _clip(line: str) -> str:
    if len(line) <= _MAX_LINE_CHARS:
        return line
    return f"{line[:_MAX_LINE_CHARS]}… [+{len(line) - _MAX_LINE_CHARS} chars]"
