"""Tool search: deferred tools, found per session through the snapshot gate.

A deferred tool (``@tool(options=ToolOptions(defer_loading=True))``, `DeferralRules`) is left
out of the definitions; the model finds it with the ``tool_search`` built-in, and from its next
step the session's snapshot (`ToolSearch.snapshot`) offers it. A deferred tool the session never
found answers ``not_offered``. See ``docs/tool-search.md``.

Modules: `_tokens` (identifier splitting), `synonyms` (query expansion), `_index` (the
`ToolIndex` protocol), `_bm25` (the default engine), `_fts5` (SQLite FTS5), `_regex` (regex
mode), `_deferral` (what is deferred), `_found` (found tools per session), `_builtin` (the
``tool_search`` tool), `_searching` (`ToolSearch`).
"""

from __future__ import annotations

from toolwire.tool_search._bm25 import BM25Index
from toolwire.tool_search._deferral import TOOL_SEARCH_NAME, DeferralRules
from toolwire.tool_search._found import FoundTools
from toolwire.tool_search._fts5 import FTS5Index
from toolwire.tool_search._index import SearchHit, ToolDocument, ToolIndex, document_of
from toolwire.tool_search._regex import RegexIndex
from toolwire.tool_search._searching import SearchMode, ToolSearch

__all__ = [
    "TOOL_SEARCH_NAME",
    "BM25Index",
    "DeferralRules",
    "FTS5Index",
    "FoundTools",
    "RegexIndex",
    "SearchHit",
    "SearchMode",
    "ToolDocument",
    "ToolIndex",
    "ToolSearch",
    "document_of",
]
