"""The model's search text, parsed into a safe query for FTS5 and for PostgreSQL.

A query is words, ``"exact phrases"``, ``-excluded`` words or phrases, and ``OR`` between two
alternatives (``deploy OR release notes`` is ``(deploy | release) & notes``, as
``websearch_to_tsquery`` reads it). Words are runs of letters and digits; every other
character only separates words. Each word reaches the database inside double quotes, so no
text, however odd, is read as FTS5 or tsquery syntax: a search can never raise a syntax error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_TERMS", "SearchQuery", "parse_query"]

MAX_TERMS = 32
"""Terms beyond this many are dropped: a query's cost stays bounded."""

_TOKEN = re.compile(r'-?"[^"]*"?|[^\s"]+')
_WORD = re.compile(r"[^\W_]+")

Phrase = tuple[str, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchQuery:
    """Every clause must match (one of its phrases), and no excluded phrase may.

    Attributes:
        clauses: AND of ORs: each clause is the alternatives one of which must match.
        excluded: Phrases that must not match.
    """

    clauses: tuple[tuple[Phrase, ...], ...]
    excluded: tuple[Phrase, ...] = ()

    @property
    def empty(self) -> bool:
        """Whether nothing can match (no positive term)."""
        return not self.clauses

    def to_fts5(self) -> str:
        """The query in FTS5 syntax, every phrase quoted."""
        parts = [
            "(" + " OR ".join(_quoted(phrase) for phrase in clause) + ")" for clause in self.clauses
        ]
        text = " AND ".join(parts)
        for phrase in self.excluded:
            text += f" NOT {_quoted(phrase)}"
        return text

    def to_websearch(self) -> str:
        """The query in ``websearch_to_tsquery`` syntax, every phrase quoted."""
        parts = [" or ".join(_quoted(phrase) for phrase in clause) for clause in self.clauses]
        parts.extend(f"-{_quoted(phrase)}" for phrase in self.excluded)
        return " ".join(parts)


def _quoted(phrase: Phrase) -> str:
    return '"' + " ".join(phrase) + '"'


def parse_query(text: str) -> SearchQuery:
    """Parse the model's search text; never raises on any string."""
    clauses: list[list[Phrase]] = []
    excluded: list[Phrase] = []
    pending_or = False
    terms = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        negated = token.startswith("-") and len(token) > 1
        body = token[1:] if negated else token
        quoted = body.startswith('"')
        if not negated and not quoted and body.upper() == "OR":
            pending_or = bool(clauses)
            continue
        phrase = tuple(word.lower() for word in _WORD.findall(body))
        if not phrase or terms >= MAX_TERMS:
            continue
        terms += 1
        if negated:
            excluded.append(phrase)
        elif pending_or:
            clauses[-1].append(phrase)
        else:
            clauses.append([phrase])
        pending_or = False
    return SearchQuery(clauses=tuple(tuple(clause) for clause in clauses), excluded=tuple(excluded))
