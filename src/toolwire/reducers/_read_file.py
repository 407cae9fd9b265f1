"""The ``read_file`` reducer: long unranged reads keep their first 200 lines and say how to page.

The read_file output format (the contract between the tool and this reducer):

* unranged read: ``# <absolute path> (<N> lines)`` then the file's lines, verbatim;
* ranged read: ``# <absolute path> (lines <a>-<b> of <N>)`` then those lines.

The header is not a file line. An unranged read of more than 200 file lines keeps the header,
then a hint naming the real arguments, then lines 1-200::

    # /repo/big.py (1003 lines)
    [Showing lines 1-200 of 1003. Call read_file with start_line/end_line for more, e.g. \
start_line=201, end_line=400.]
    ...

A read is ranged (and never touched) when ``args`` has ``start_line`` or ``end_line``, or the
header says ``lines <a>-<b> of <N>``. Errors are never touched.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from toolwire.reducers._registry import GuardedReducer, ReducerContext
from toolwire.results import Ok, ToolResult
from toolwire.safety.linear_regex import linear

__all__ = ["MAX_UNRANGED_LINES", "ReadFileReducer"]

MAX_UNRANGED_LINES = 200
"""An unranged read keeps at most this many file lines."""

_HEADER = linear(r"^# (?P<path>.+) \((?P<total>\d+) lines?\)$")
_RANGED_HEADER = linear(r"^# .+ \(lines \d+-\d+ of \d+\)$")


class ReadFileReducer(GuardedReducer):
    """Cuts unranged reads of long files to their first 200 lines, with a paging hint."""

    tool_name = "read_file"

    def _reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        if not isinstance(result, Ok) or _is_ranged(ctx):
            return result
        text = result.value
        first, _, rest = text.partition("\n")
        header = _HEADER.match(first.rstrip("\r"))
        if _RANGED_HEADER.match(first.rstrip("\r")):
            return result
        body = rest if header is not None else text
        lines = body.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # a trailing newline ends the last line; it does not start another
        if len(lines) <= MAX_UNRANGED_LINES:
            return result
        total = len(lines)
        if header is not None:
            total = max(total, int(header.group("total")))
        hint = (
            f"[Showing lines 1-{MAX_UNRANGED_LINES} of {total}. Call read_file with "
            f"start_line/end_line for more, e.g. start_line={MAX_UNRANGED_LINES + 1}, "
            f"end_line={min(total, 2 * MAX_UNRANGED_LINES)}.]"
        )
        parts = [first] if header is not None else []
        parts.append(hint)
        parts.extend(lines[:MAX_UNRANGED_LINES])
        return dataclasses.replace(result, value="\n".join(parts))


def _is_ranged(ctx: ReducerContext) -> bool:
    args: Any = getattr(ctx, "args", None)
    if not hasattr(args, "get"):
        return False
    return args.get("start_line") is not None or args.get("end_line") is not None
