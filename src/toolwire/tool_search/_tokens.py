"""Words of tool names and texts, as the search engines compare them.

Identifiers are split at ``_``, ``-``, ``.``, ``/`` and ``__`` (``mcp__github__create_issue``)
and at case changes (``createIssue``, ``HTTPRequest``); every word is lower-cased, common
English stop words are dropped, and a light suffix stripper folds ``issues``/``issue`` and
``creating``/``created``/``create`` onto one form. The same function serves the documents and
the queries, so what one folds the other folds alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["STOP_WORDS", "identifier_words", "stem", "tokens"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

_STOP_WORDS_TEXT = """a an and are as at be by can do does for from get has have how i if in
into is it its me my of on or our so that the their them then there these this to us was we
what when where which who will with you your want need please some any via using"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
"""Words too common to tell tools apart. ``get`` is one: nearly every tool's name has it."""


def identifier_words(text: str) -> list[str]:
    """The words of an identifier or text, lower-cased, in order.

    >>> identifier_words("mcp__github__createPullRequest")
    ['mcp', 'github', 'create', 'pull', 'request']
    """
    return [word.lower() for word in _WORD.findall(text)]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: plural ``s``/``es``/``ies``, ``ing``, ``ed``, a final ``e``."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # running -> runn -> run
    return word


def tokens(text: str) -> list[str]:
    """The searchable terms of ``text``: split, lower-cased, stop words dropped, stemmed."""
    if len(text) <= _CACHED_CHARS:
        return list(_short_tokens(text))
    return [stem(word) for word in identifier_words(text) if word not in STOP_WORDS]


_CACHED_CHARS = 64


@lru_cache(maxsize=16384)
def _short_tokens(text: str) -> tuple[str, ...]:
    """`tokens` of a name or a short text (parameter names repeat across tools)."""
    return tuple(stem(word) for word in identifier_words(text) if word not in STOP_WORDS)
