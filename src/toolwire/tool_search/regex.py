"""`RegexIndex`: case-insensitive regular-expression search, as the providers' regex mode.

A pattern is matched (``re.search``) against each tool's name, description, and parameter
names and descriptions; a name match ranks above a description match, which ranks above a
parameter match. Patterns are capped at `MAX_PATTERN_CHARS` characters and nested
quantifiers such as ``(a+)+`` are refused: Python's ``re`` has no time limit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolwire.tool_search.index import SearchHit, ToolDocument

__all__ = ["MAX_PATTERN_CHARS", "RegexIndex", "compile_pattern"]

MAX_PATTERN_CHARS = 200
_NESTED_QUANTIFIER = re.compile(r"\([^)]*[+*}]\)\s*[+*{]")


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled case-insensitively.

    Raises:
        ValueError: Too long, a nested quantifier, or not a valid regular expression; the
            message says which.
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    if _NESTED_QUANTIFIER.search(pattern):
        raise ValueError("nested quantifiers such as (a+)+ are not allowed")
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None


class RegexIndex:
    """Regex search over the documents' texts."""

    def __init__(self) -> None:
        self._documents: list[tuple[str, str, str]] = []

    def build(self, documents: Sequence[ToolDocument]) -> None:
        """Keep the texts of ``documents``."""
        self._documents = [
            (
                document.name,
                document.description,
                "\n".join(f"{name} {text}" for name, text in document.parameters),
            )
            for document in documents
        ]

    def search(self, query: str, limit: int) -> list[SearchHit]:
        """Tools whose texts match ``query`` (a regular expression), best first.

        Raises:
            ValueError: ``query`` is not an acceptable pattern (see `compile_pattern`).
        """
        pattern = compile_pattern(query)
        hits: list[SearchHit] = []
        for name, description, parameters in self._documents:
            score = (
                3.0 * bool(pattern.search(name))
                + 2.0 * bool(pattern.search(description))
                + 1.0 * bool(pattern.search(parameters))
            )
            if score:
                hits.append(SearchHit(name=name, score=score))
        hits.sort(key=lambda hit: -hit.score)
        return hits[: max(limit, 0)]
