"""The model's search text, parsed into a safe query for FTS5 and for PostgreSQL.

A query is words, ``"exact phrases"``, ``-excluded`` words or phrases, and ``OR`` between two
alternatives (``deploy OR release notes`` is ``(deploy | release) & notes``, as
``websearch_to_tsquery`` reads it). Words are runs of letters and digits, lower-cased and
without diacritics (``Café`` is ``cafe``); every other character only separates words, so
``config.yaml`` is the phrase ``config yaml`` and ``1.2.3`` the phrase ``1 2 3``. Each word
reaches the database inside double quotes, so no text, however odd, is read as FTS5 or tsquery
syntax: a search can never raise a syntax error.

**One answer on every store.** English stop words (`STOP_WORDS`: ``the``, ``was``, ...) are
not searched: a word that is one is dropped, and so is a phrase made only of them (inside a
phrase they stay, as its words' positions). `index_terms` is what the PostgreSQL archive
indexes, split into the same words as the query; SQLite's FTS5 tokenizer (``unicode61
remove_diacritics 2``) splits the same way. Both stem English words (Porter on SQLite, Snowball
on PostgreSQL: rare words may stem apart).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from toolwire.capabilities.kinds.archive._stop_words import STOP_WORDS

__all__ = ["MAX_TERMS", "STOP_WORDS", "SearchQuery", "index_terms", "parse_query", "words_of"]

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
        phrase = words_of(body)
        if all(word in STOP_WORDS for word in phrase) or terms >= MAX_TERMS:
            continue  # nothing (left) to search: stop words are never searched
        terms += 1
        if negated:
            excluded.append(phrase)
        elif pending_or:
            clauses[-1].append(phrase)
        else:
            clauses.append([phrase])
        pending_or = False
    return SearchQuery(clauses=tuple(tuple(clause) for clause in clauses), excluded=tuple(excluded))


def words_of(text: str) -> tuple[str, ...]:
    """The words of ``text`` as every store searches them: runs of letters and digits,
    lower-cased, diacritics removed."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(char for char in decomposed if not unicodedata.combining(char))
    return tuple(word.lower() for word in _WORD.findall(text))


def index_terms(text: str) -> str:
    """``text`` as the PostgreSQL archive indexes it: its `words_of`, one space apart."""
    return " ".join(words_of(text))
