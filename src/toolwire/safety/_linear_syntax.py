"""Python's regex syntax → RE2's, for `toolwire.safety.linear_regex`.

Patterns are written as for `re` (so tests can compare both engines on the same source) and
translated here: ``\\Z`` becomes ``\\z``, ``\\uXXXX`` and ``\\UXXXXXXXX`` become ``\\x{...}``,
``\\s``/``\\S`` keep Python's Unicode whitespace (RE2's are ASCII), and the flags become an
inline group. What a linear engine cannot run — lookarounds, backreferences — raises
`ValueError` here with a clear message rather than a bare RE2 error; so does ``{,n}``, which
RE2 would read literally.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["escape", "to_re2"]

_FLAG_LETTERS: Final = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s"}
# Python's whitespace (str.isspace), as members of an RE2 class
_WHITESPACE: Final = (
    r"\x{9}-\x{d}\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}"
    r"\x{205f}\x{3000}"
)
_OUTSIDE_CLASS: Final = {r"\s": f"[{_WHITESPACE}]", r"\S": f"[^{_WHITESPACE}]", r"\Z": r"\z"}
_REFUSED: Final = {
    "(?=": "a lookahead",
    "(?!": "a negative lookahead",
    "(?<=": "a lookbehind",
    "(?<!": "a negative lookbehind",
    "(?P=": "a backreference",
}
_SPECIAL: Final = frozenset(".^$*+?{}[]\\|()")


def escape(literal: str) -> str:
    """A pattern that matches ``literal`` exactly (valid for `re` and for RE2)."""
    return "".join(f"\\{char}" if char in _SPECIAL else char for char in literal)


def to_re2(source: str, flags: int) -> str:
    """The RE2 pattern for ``source`` compiled with ``flags``.

    Raises:
        ValueError: A construct or flag a linear engine cannot run.
    """
    unknown = flags & ~sum(_FLAG_LETTERS)
    if unknown:
        raise ValueError(f"unsupported flags for a linear pattern: {re.RegexFlag(unknown)!r}")
    letters = "".join(letter for flag, letter in _FLAG_LETTERS.items() if flags & flag)
    return (f"(?{letters})" if letters else "") + _translate(source)


def _translate(source: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            escape_, index = _escape(source, index)
            out.append(_OUTSIDE_CLASS.get(escape_, escape_))
        elif char == "[":
            members, index = _char_class(source, index)
            out.append(members)
        else:
            if char == "(":
                for opening, construct in _REFUSED.items():
                    if source.startswith(opening, index):
                        raise ValueError(f"{construct} cannot run on a linear engine: {source!r}")
            if source.startswith("{,", index):
                raise ValueError(
                    f"write {{0,n}}: a linear engine reads {{,n}} literally: {source!r}"
                )
            out.append(char)
            index += 1
    return "".join(out)


def _escape(source: str, index: int) -> tuple[str, int]:
    """The escape at ``index`` (``\\uXXXX`` spelt ``\\x{XXXX}``) and the index after it."""
    letter = source[index + 1 : index + 2]
    if letter in ("u", "U"):
        width = 4 if letter == "u" else 8
        digits = source[index + 2 : index + 2 + width]
        return f"\\x{{{digits}}}", index + 2 + width
    if letter.isdigit() and letter != "0":
        raise ValueError(f"a backreference cannot run on a linear engine: {source!r}")
    return source[index : index + 2], index + 2


def _char_class(source: str, index: int) -> tuple[str, int]:
    """The class starting at ``index``, with ``\\s`` widened to Python's whitespace."""
    out = ["["]
    index += 1
    negated = source.startswith("^", index)
    if negated:
        out.append("^")
        index += 1
    escapes: set[str] = set()
    first = True
    while index < len(source) and (source[index] != "]" or first):
        first = False
        if source[index] == "\\":
            escape_, index = _escape(source, index)
            escapes.add(escape_)
            out.append(_WHITESPACE if escape_ == r"\s" else escape_)
        else:
            out.append(source[index])
            index += 1
    if r"\S" in escapes and (negated or r"\s" not in escapes):
        # RE2's \S counts Unicode spaces as non-space; only [\s\S] (everything) is exact
        raise ValueError(f"\\S in this class cannot run exactly on a linear engine: {source!r}")
    out.append("]")
    return "".join(out), index + 1
