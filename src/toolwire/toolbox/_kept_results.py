"""``read_result`` (toolset ``results``): page through a result that was trimmed to its budget.

With result handles on (``ToolRegistry(result_handles=ResultHandles())``, see
`toolwire.execution.handles`), a trimmed value ends with
``[result handle: h-… — read_result(handle="h-…", start=N)]``. ``read_result(handle, start,
length)`` answers the characters ``start`` to ``start + length`` of the full text, as the
original tool's reducer left it (the same text the trimmed value began), under a header naming
the tool and the range, and with the call that reads on when more is left::

    [read_result h-0123456789abcdef: chars 80000-160000 of 2400000 from terminal]
    ...
    [more: read_result(handle="h-0123456789abcdef", start=160000)]

A page fits the call's budget with its header and ``[more: ...]`` line (and is never kept
behind a handle of its own, even when the budget is too small for one character of it). The
text lives in the key-value store under ``tool:read_result``; a handle belongs to its session
and principal (``ctx.principal``), and any other session or credential (or an expired or
evicted handle) is answered ``not_available``. Its output is
treated as untrusted (the presenter wraps it) whatever the original tool was: a page may come
from a web page or a command's output.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolwire.capabilities import storage
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.execution.handles import HANDLES_TOOL, handle_owner, load_record
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tool_options import ToolOptions
from toolwire.tools import Tool, ToolAnnotations

__all__ = ["read_result", "result_tools"]


@tool(
    name=HANDLES_TOOL,
    capabilities=[storage("tool-private")],
    options=ToolOptions(
        toolset="results",
        output_is_untrusted=True,
        annotations=ToolAnnotations(
            title="Read a kept result", read_only=True, idempotent=True, open_world=False
        ),
    ),
)
async def read_result(
    handle: Annotated[str, Field(min_length=1, max_length=64)],
    ctx: ToolContext,
    start: Annotated[int, Field(ge=0)] = 0,
    length: Annotated[int | None, Field(ge=1)] = None,
) -> ToolResult:
    """Read part of a result that was cut short: the handle its last line names.

    Args:
        handle: The handle (``h-`` and 16 hex digits) from the ``[result handle: ...]`` line.
        start: The first character to read (the trimmed value already showed ``[0, start)``).
        length: How many characters to read; at most what fits this call's budget (the default).
    """
    store = ctx.kv_store
    if store is None:
        return Err(
            "read_result needs a key-value store, and none is configured",
            ErrorCode.NOT_AVAILABLE,
            reason="no_store",
        )
    record = await load_record(store, handle_owner(ctx.session_id, ctx.principal), handle)
    if record is None:
        return Err(
            f"No result {handle!r} in this session: it expired, was evicted, or belongs to "
            "another session",
            ErrorCode.NOT_AVAILABLE,
            reason="handle_not_available",
        )
    total = len(record.text)
    if start > total:
        return Err(
            f"start={start} is past the end: the result has {total} characters",
            ErrorCode.INPUT_INVALID,
            field="start",
        )
    room = max(1, ctx.result_budget_chars - len(_header(handle, start, total, total, record.tool)))
    room = max(1, room - len(_more(handle, total)))
    end = min(total, start + min(length or room, room))
    header = _header(handle, start, end, total, record.tool)
    more = _more(handle, end) if end < total else ""
    facts = {"handle": handle, "tool": record.tool, "start": start, "end": end, "total": total}
    return Ok(header + record.text[start:end] + more, structured=facts)


def _header(handle: str, start: int, end: int, total: int, tool_name: str) -> str:
    return f"[read_result {handle}: chars {start}-{end} of {total} from {tool_name}]\n"


def _more(handle: str, end: int) -> str:
    return f'\n[more: read_result(handle="{handle}", start={end})]'


def result_tools() -> list[Tool]:
    """``read_result`` (toolset ``results``): reads what result handles kept."""
    return [read_result]
