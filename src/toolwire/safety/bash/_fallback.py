"""Reading text the parser could not: word by word between operators.

A line whose quotes were taken away and still does not parse is cut at ``;``, ``&``, ``|``,
parentheses, redirections and newlines; each piece is split at blanks, brace-expanded, and its
leading keywords (``{``, ``then``, ``do``...) dropped. ``~``, ``$HOME`` and ``${HOME}`` at the
start of a word read as the home folder.
"""

from __future__ import annotations

from toolwire.safety.bash._commands import RESERVED_WORDS
from toolwire.safety.bash._words import HOME, Word, brace_words
from toolwire.safety.linear_regex import linear

__all__ = ["fallback_commands"]

_PIECES = linear(r"[^;&|()<>\n]+")


def fallback_commands(source: str) -> list[list[Word]]:
    """The words of each piece of ``source`` between operators (empty pieces left out).

    Raises:
        TooComplexError: a word brace-expands to too many words.
    """
    commands: list[list[Word]] = []
    for piece in _PIECES.findall(source):
        parts = [word for part in piece.split() for word in brace_words(part)]
        while parts and parts[0] in RESERVED_WORDS:
            parts.pop(0)
        if parts:
            commands.append([_plain_word(part) for part in parts])
    return commands


def _plain_word(text: str) -> Word:
    for prefix in ("~", "$HOME", "${HOME}"):
        if not text.startswith(prefix):
            continue
        rest = text[len(prefix) :]
        if prefix == "~":
            cut = rest.find("/")
            return Word(HOME + (rest[cut:] if cut >= 0 else ""))
        if rest[:1] in ("", "/"):
            return Word(HOME + rest)
    return Word(text, any(char in "*?[" for char in text))
