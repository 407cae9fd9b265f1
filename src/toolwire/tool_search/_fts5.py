"""`FTS5Index`: SQLite FTS5's ``bm25()`` over the same words, for comparison.

The documents and the query are tokenized by `toolwire.tool_search._tokens` first (so both
engines see the same words); FTS5 ranks with per-column weights (name, parameters,
description). In-memory, one connection per index. Its scores are not on
`BM25Index`'s scale: ``min_score`` applies to ``-bm25()`` divided by the number of query words.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from toolwire.tool_search._index import SearchHit, ToolDocument
from toolwire.tool_search._tokens import tokens
from toolwire.tool_search.synonyms import expand

__all__ = ["FTS5Index"]


class FTS5Index:
    """BM25 ranking by SQLite FTS5 (what `toolwire.capabilities.kinds.archive` already uses).

    Args:
        min_score: Hits scoring less are dropped.
        synonyms: Add the synonyms of the query's words as further OR terms.
    """

    def __init__(self, *, min_score: float = 0.0, synonyms: bool = True) -> None:
        self._min_score, self._synonyms = min_score, synonyms
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5(name, params, description, tokenize='unicode61')"
        )

    def build(self, documents: Sequence[ToolDocument]) -> None:
        """Index ``documents`` (replacing the previous ones)."""
        rows = [
            (
                " ".join(tokens(document.name)),
                " ".join(tokens(" ".join(name for name, _ in document.parameters))),
                " ".join(
                    tokens(
                        " ".join(
                            [document.description, document.group or ""]
                            + [text for _, text in document.parameters]
                        )
                    )
                ),
                document.name,
            )
            for document in documents
        ]
        with self._db:
            self._db.execute("DELETE FROM docs")
            self._db.execute("DROP TABLE IF EXISTS names")
            self._db.execute("CREATE TABLE names (id INTEGER PRIMARY KEY, name TEXT)")
            self._db.executemany(
                "INSERT INTO docs (rowid, name, params, description) VALUES (?, ?, ?, ?)",
                [(index, *row[:3]) for index, row in enumerate(rows)],
            )
            self._db.executemany(
                "INSERT INTO names (id, name) VALUES (?, ?)",
                [(index, row[3]) for index, row in enumerate(rows)],
            )

    def search(self, query: str, limit: int) -> list[SearchHit]:
        """The best ``limit`` tools for ``query``."""
        terms = list(expand(query, synonyms=self._synonyms))
        if not terms or limit < 1:
            return []
        match = " OR ".join('"' + term.replace('"', "") + '"' for term in terms)
        own = max(1, len(tokens(query)))
        rows = self._db.execute(
            "SELECT names.name, -bm25(docs, 3.0, 1.0, 1.0) AS score FROM docs "
            "JOIN names ON names.id = docs.rowid WHERE docs MATCH ? "
            "ORDER BY score DESC LIMIT ?",
            (match, limit),
        ).fetchall()
        hits = [SearchHit(name=name, score=round(score / own, 4)) for name, score in rows]
        return [hit for hit in hits if hit.score >= self._min_score]
