"""`RegexIndex`: case-insensitive regular-expression search, as the providers' regex mode.

A pattern is searched for in each tool's name, description, and parameter names and
descriptions; a name match ranks above a description match, which ranks above a parameter
match. The pattern comes from the model, so it runs on the linear-time engine
(`toolwire.safety.linear_regex`, RE2): ``(a|aa)+$`` cannot backtrack for minutes. Patterns
are capped at `MAX_PATTERN_CHARS` characters; lookarounds and backreferences, which a linear
engine cannot run, are refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolwire.safety.linear_regex import LinearPattern
from toolwire.tool_search._index import SearchHit, ToolDocument

__all__ = ["MAX_PATTERN_CHARS", "RegexIndex", "compile_pattern"]

MAX_PATTERN_CHARS = 200


def compile_pattern(pattern: str) -> LinearPattern:
    """``pattern`` compiled case-insensitively for linear-time matching (not registered with
    `toolwire.safety.linear_regex.registered_patterns`: it is the model's, one per search).

    Raises:
        ValueError: Too long, or not a regular expression a linear engine runs; the message
            says which.
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    try:
        re.compile(pattern)  # Python's syntax, checked (compiling never backtracks)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    try:
        return LinearPattern(pattern, re.IGNORECASE, __name__)
    except ValueError as exc:
        raise ValueError(f"not a regular expression this search runs: {exc}") from None


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
