"""The ``tool_search`` built-in: the model's way to find deferred tools.

``tool_search(query, limit=5, mode="words")`` answers the best matches among the deferred tools —
``structured = {"tools": [{"name", "description", "score", "group", "parameters"}]}`` and a compact
text — and makes them callable for the calling session from its next step (the session's next
snapshot offers them). With code mode (``run_code``), the answer also holds the found tools' typed
Python stubs (``structured["stubs"]`` and in the text), what a program calls them by.
``mode="regex"`` takes a case-insensitive regular expression instead of words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, Protocol

from toolwire.context import ToolContext
from toolwire.principals import Principal
from toolwire.results import ErrorCode, ToolResult, err, ok
from toolwire.tool_search._deferral import TOOL_SEARCH_NAME
from toolwire.tool_search._index import SearchHit
from toolwire.tools import Tool, ToolAnnotations

__all__ = ["MAX_LIMIT", "SearchMode", "Searcher", "tool_search_tool"]

SearchMode = Literal["words", "regex"]


class Searcher(Protocol):
    """What the tool needs of `toolwire.tool_search.ToolSearch`."""

    def deferred(self) -> frozenset[str]:
        """The names of the deferred tools."""
        ...

    def search(self, query: str, limit: int = 5, *, mode: SearchMode = "words") -> list[SearchHit]:
        """The best matches among the deferred tools."""
        ...

    def describe(self, hits: Sequence[SearchHit]) -> list[dict[str, Any]]:
        """What the model is told of each hit."""
        ...

    async def mark_found(
        self, session_id: str, names: Iterable[str], principal: Principal = ...
    ) -> list[str]:
        """Make ``names`` callable in the session."""
        ...

    def stubs(self, names: Sequence[str]) -> str | None:
        """The code-mode stubs of ``names``, or ``None``."""
        ...


MAX_LIMIT = 20
_DESCRIPTION_CHARS = 160

_DESCRIPTION = (
    "Find tools that are not loaded yet. Describe what you need to do in a few words "
    "(e.g. 'open a ticket', 'post to a chat channel'); the matching tools become callable "
    "from your next step."
)

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
            "description": "What you need, in a few words; with mode 'regex', a "
            "case-insensitive regular expression over names, descriptions and parameters.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "default": 5,
            "description": "At most this many tools.",
        },
        "mode": {"type": "string", "enum": ["words", "regex"], "default": "words"},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def _line(tool: dict[str, Any]) -> str:
    description = " ".join(str(tool["description"]).split())
    if len(description) > _DESCRIPTION_CHARS:
        description = description[: _DESCRIPTION_CHARS - 1] + "…"
    group = f" [{tool['group']}]" if tool.get("group") else ""
    return f"- {tool['name']}{group}: {description}"


def tool_search_tool(search: Searcher) -> Tool:
    """The ``tool_search`` tool of ``search``, available whenever something is deferred."""

    async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query: str = args["query"]
        limit: int = args.get("limit", 5)
        mode: SearchMode = "regex" if args.get("mode") == "regex" else "words"
        try:
            hits = search.search(query, limit, mode=mode)
        except ValueError as exc:
            return err(f"query: {exc}", ErrorCode.INPUT_INVALID, field="query")
        tools = search.describe(hits)
        await search.mark_found(ctx.session_id, [t["name"] for t in tools], ctx.principal)
        if not tools:
            text = f"No tool matches {query!r}. Try other words, or mode 'regex'."
        else:
            text = "\n".join(
                [f"Found {len(tools)} tool(s), callable from your next step:"]
                + [_line(t) for t in tools]
            )
        structured: dict[str, Any] = {"query": query, "tools": tools}
        stubs = search.stubs([t["name"] for t in tools])
        if stubs:
            structured["stubs"] = stubs
            text += f"\n\nIn run_code programs:\n```python\n{stubs}```"
        return ok(text, structured=structured)

    return Tool(
        name=TOOL_SEARCH_NAME,
        description=_DESCRIPTION,
        schema=_SCHEMA,
        execute=execute,
        always_include=True,
        is_available=lambda: bool(search.deferred()),
        annotations=ToolAnnotations(title="Tool search", read_only=True, idempotent=True),
    )
