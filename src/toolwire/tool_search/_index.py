"""`ToolIndex`: what a search engine over tool definitions answers, and what it indexes.

An engine is built from `ToolDocument` values (one per tool: name, description, parameter
names and descriptions, and the group it belongs to — its MCP server or toolset) and answers
a query with ranked `SearchHit` values. The engines: `toolwire.tool_search._bm25.BM25Index`
(the default), `toolwire.tool_search._fts5.FTS5Index` (SQLite FTS5's ``bm25()``) and
`toolwire.tool_search._regex.RegexIndex` (the providers' regex mode). Any object with the same
two methods can replace them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from toolwire.tools import Tool

__all__ = ["SearchHit", "ToolDocument", "ToolIndex", "document_of"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolDocument:
    """What an engine indexes of one tool.

    Attributes:
        name: The tool's name.
        description: Its description.
        parameters: ``(name, description)`` of each top-level parameter.
        group: Its MCP server or toolset, if any.
    """

    name: str
    description: str
    parameters: tuple[tuple[str, str], ...] = ()
    group: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchHit:
    """One ranked match.

    Attributes:
        name: The tool's name.
        score: The engine's score (higher is better; comparable within one answer only).
    """

    name: str
    score: float


class ToolIndex(Protocol):
    """A search engine over tool definitions."""

    def build(self, documents: Sequence[ToolDocument]) -> None:
        """Index ``documents``, replacing whatever was indexed before."""
        ...

    def search(self, query: str, limit: int) -> list[SearchHit]:
        """At most ``limit`` hits for ``query``, best first; none below the engine's
        threshold (a query matching nothing answers ``[]``).

        Raises:
            ValueError: The query is not one this engine can run (e.g. a bad regex).
        """
        ...


def document_of(tool: Tool) -> ToolDocument:
    """The `ToolDocument` of ``tool``: its top-level parameters' names and descriptions, and
    its MCP server (else its toolset) as the group."""
    properties: Any = tool.schema.get("properties")
    parameters: list[tuple[str, str]] = []
    if isinstance(properties, Mapping):
        for name, spec in properties.items():
            text = spec.get("description") if isinstance(spec, Mapping) else None
            parameters.append((str(name), text if isinstance(text, str) else ""))
    return ToolDocument(
        name=tool.name,
        description=tool.description,
        parameters=tuple(parameters),
        group=tool.mcp_server or tool.toolset,
    )
