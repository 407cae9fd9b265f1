"""``session_search``: full-text search over past sessions, through the ``archive`` kind.

The host records messages into a `SessionArchive`; the tool sees only its scope's (the call's
personality, else its session's user, else its session). Hits are ranked, newest first on ties,
each with a short snippet. The output is untrusted: past messages hold whatever was said.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolwire.capabilities.kinds.archive.kind import ARCHIVE, archive
from toolwire.capabilities.seams import ArchiveHit
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import StoreError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tool_options import ToolOptions
from toolwire.toolbox._common import missing_seam
from toolwire.tools import ToolAnnotations

__all__ = ["MAX_QUERY_CHARS", "render_hits", "session_search"]

MAX_QUERY_CHARS = 1_000
"""The longest query accepted."""


def render_hits(query: str, scope: str, hits: list[ArchiveHit]) -> str:
    """The hits as numbered lines: ``1. [2026-01-05 12:00Z] s1 · user: snippet``."""
    if not hits:
        return f"No past messages match {query!r} (scope {scope})."
    count = "1 past message matches" if len(hits) == 1 else f"{len(hits)} past messages match"
    lines = [f"{count} {query!r} (scope {scope}), best first:"]
    for number, hit in enumerate(hits, 1):
        stamp = hit.at.strftime("%Y-%m-%d %H:%MZ")
        lines.append(f"{number}. [{stamp}] {hit.session} · {hit.role}: {hit.snippet}")
    return "\n".join(lines)


@tool(
    capabilities=[archive()],
    options=ToolOptions(
        toolset="memory",
        output_is_untrusted=True,
        max_result_chars=10_000,
        annotations=ToolAnnotations(title="Search past sessions", read_only=True, open_world=False),
    ),
)
async def session_search(
    ctx: ToolContext, query: str, limit: Annotated[int, Field(ge=1, le=50)] = 10
) -> ToolResult:
    """Search what was said in past sessions (yours: this personality's or user's).

    Matches words (also their other forms), "exact phrases", -excluded words and OR between
    alternatives. Answers the best matches with a snippet each, newest first on ties.

    Args:
        query: Words to look for, e.g. 'deploy OR release -staging'.
        limit: How many matches to answer (1-50).
    """
    if len(query) > MAX_QUERY_CHARS:
        return Err(
            f"query is {len(query):,} characters; keep it under {MAX_QUERY_CHARS:,}",
            ErrorCode.INPUT_INVALID,
            field="query",
        )
    seam = ctx.seam(ARCHIVE)
    if seam is None:
        return missing_seam("session_search", "the session archive")
    try:
        scope = await seam.scope()
        hits = await seam.search(query, limit)
    except StoreError as exc:
        return Err(f"session_search: the archive failed: {exc}", cause="StoreError")
    return Ok(
        render_hits(query, scope.label, hits),
        structured={
            "scope": scope.label,
            "hits": [
                {
                    "session": h.session,
                    "role": h.role,
                    "at": h.at.isoformat(),
                    "snippet": h.snippet,
                    "score": h.score,
                }
                for h in hits
            ],
        },
    )
