"""`BM25Index`: Okapi BM25 over an in-memory inverted index, in pure Python (the default).

Fields are weighted as one bag of words (BM25F, simplified): a word of the name counts
`NAME_WEIGHT` times, of a parameter name `PARAMETER_WEIGHT`, of the description, the group and
parameter descriptions once or less. Each posting's BM25 weight is worked out when the index
is built, so a search only adds numbers: about 2 ms (p50) over 10,000 tools (``make bench``).

Each word of the query is matched by itself or by its alternatives (`toolwire.tool_search.
synonyms`, and for a word no tool uses, indexed words sharing its prefix), and a tool is
credited once per word, by its best alternative; a synonym rarer than the word counts no more
than the word would (its IDF is capped at the word's), so an odd synonym cannot outrank the
plain meaning.

A hit's score is its BM25 sum divided by the summed IDF of the query's own words (a word no
tool has counts as an average word): roughly, how much of the query the tool answers. When
the best hit scores under ``min_score`` the answer is empty, so a query about something no
tool does finds nothing; hits under `DEFAULT_RELATIVE_FLOOR` of the best are dropped.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter
from collections.abc import Sequence

from toolwire.tool_search._index import SearchHit, ToolDocument
from toolwire.tool_search._tokens import tokens
from toolwire.tool_search.synonyms import expand_words

__all__ = ["DEFAULT_MIN_SCORE", "BM25Index", "weighted_terms"]

NAME_WEIGHT = 3.0
PARAMETER_WEIGHT = 1.0
DESCRIPTION_WEIGHT = 1.0
GROUP_WEIGHT = 1.0
PARAMETER_TEXT_WEIGHT = 0.3
DEFAULT_MIN_SCORE = 0.3
"""The best hit's score under which the answer is empty (chosen with the benchmark's
no-match queries: see ``benchmarks/bench_tool_search.py``)."""


RELATED_WEIGHT = 0.5
"""The weight of an indexed word related by prefix to a query word no tool uses."""
RELATED_LIMIT = 3
MIN_RELATED_CHARS = 4

DEFAULT_RELATIVE_FLOOR = 0.4
"""Hits under this share of the best hit's score are dropped."""


def weighted_terms(document: ToolDocument, named: set[str] | None = None) -> dict[str, float]:
    """The document's terms with their field-weighted frequencies; the words of its name and
    description are also added to ``named`` when given."""
    counts: dict[str, float] = {}
    get = counts.get
    name_terms, description_terms = tokens(document.name), tokens(document.description)
    if named is not None:
        named.update(name_terms)
        named.update(description_terms)
    for term in name_terms:
        counts[term] = get(term, 0.0) + NAME_WEIGHT
    for term in description_terms:
        counts[term] = get(term, 0.0) + DESCRIPTION_WEIGHT
    if document.group:
        for term in tokens(document.group):
            counts[term] = get(term, 0.0) + GROUP_WEIGHT
    for name, text in document.parameters:
        for term in tokens(name):
            counts[term] = get(term, 0.0) + PARAMETER_WEIGHT
        for term in tokens(text):
            counts[term] = get(term, 0.0) + PARAMETER_TEXT_WEIGHT
    return counts


class BM25Index:
    """BM25 over tool documents, with synonym expansion of the query.

    Args:
        k1: Term-frequency saturation.
        b: Length normalisation.
        min_score: An answer whose best hit scores less is empty (see the module docstring).
        synonyms: Expand queries with `toolwire.tool_search.synonyms`.
        relative_floor: Hits scoring under this share of the best one are dropped (a tool
            matching one side word of the query is not offered beside the real answer).
    """

    def __init__(
        self,
        *,
        k1: float = 1.2,
        b: float = 0.75,
        min_score: float = DEFAULT_MIN_SCORE,
        synonyms: bool = True,
        relative_floor: float = DEFAULT_RELATIVE_FLOOR,
    ) -> None:
        self._relative_floor = relative_floor
        self._k1, self._b, self._min_score, self._synonyms = k1, b, min_score, synonyms
        self._names: list[str] = []
        self._postings: dict[str, list[tuple[int, float]]] = {}
        self._idf: dict[str, float] = {}
        self._unknown_idf = 0.0
        self._vocabulary: list[str] = []
        self._named: set[str] = set()

    def build(self, documents: Sequence[ToolDocument]) -> None:
        """Index ``documents`` (replacing the previous ones)."""
        named: set[str] = set()
        bags = [weighted_terms(document, named) for document in documents]
        count = len(bags)
        lengths = [sum(bag.values()) for bag in bags]
        average = (sum(lengths) / count) if count else 1.0
        frequency: Counter[str] = Counter()
        for bag in bags:
            frequency.update(bag.keys())
        idf = {
            term: math.log(1.0 + (count - df + 0.5) / (df + 0.5)) for term, df in frequency.items()
        }
        k1, b = self._k1, self._b
        postings: dict[str, list[tuple[int, float]]] = {}
        for index, (bag, length) in enumerate(zip(bags, lengths, strict=True)):
            norm = k1 * (1.0 - b + b * length / average)
            for term, tf in bag.items():
                weight = idf[term] * tf * (k1 + 1.0) / (tf + norm)
                postings.setdefault(term, []).append((index, weight))
        self._names = [document.name for document in documents]
        self._postings, self._idf = postings, idf
        self._vocabulary = sorted(idf)
        self._named = named
        self._unknown_idf = (sum(idf.values()) / len(idf)) if idf else 1.0

    def _related(self, term: str) -> list[str]:
        """Indexed words sharing a stem-like prefix with a word no tool uses (``reviewer`` →
        ``review``, ``deploy`` → ``deployment``): at most `RELATED_LIMIT`."""
        if len(term) < MIN_RELATED_CHARS:
            return []
        related = [
            term[:end]
            for end in range(len(term) - 1, MIN_RELATED_CHARS - 1, -1)
            if term[:end] in self._idf
        ][:1]
        vocabulary = self._vocabulary
        start = bisect.bisect_left(vocabulary, term)
        for word in vocabulary[start : start + RELATED_LIMIT]:
            if word.startswith(term):
                related.append(word)
        return related[:RELATED_LIMIT]

    def search(self, query: str, limit: int) -> list[SearchHit]:
        """The best ``limit`` tools for ``query``; none when the best scores under
        ``min_score``."""
        words = expand_words(query, synonyms=self._synonyms, known=self._named)
        if not words or limit < 1:
            return []
        ideal = sum(self._idf.get(word, self._unknown_idf) for word, _ in words) or 1.0
        scores: dict[int, float] = {}
        get = scores.get
        for word, alternatives in words:
            if word not in self._idf:
                for related in self._related(word):
                    alternatives.setdefault(related, RELATED_WEIGHT)
            best_of_word: dict[int, float] = {}
            best_get = best_of_word.get
            own_idf = self._idf.get(word, self._unknown_idf)
            for term, weight in alternatives.items():
                if term != word:  # a rarer synonym counts no more than the word would
                    weight *= min(1.0, own_idf / self._idf.get(term, own_idf))
                for index, posting in self._postings.get(term, ()):
                    value = weight * posting
                    if value > best_get(index, 0.0):
                        best_of_word[index] = value
            for index, value in best_of_word.items():
                scores[index] = get(index, 0.0) + value
        best = heapq.nlargest(limit, ((score, -index) for index, score in scores.items()))
        if not best or best[0][0] < self._min_score * ideal:
            return []  # even the best match answers too little of the query
        tail = best[0][0] * self._relative_floor
        best = [(score, negated) for score, negated in best if score >= tail]
        return [
            SearchHit(name=self._names[-negated], score=round(score / ideal, 4))
            for score, negated in best
        ]
