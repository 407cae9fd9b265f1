"""Expanding a word statically, as far as the text alone allows.

`expand_word` turns one word of the syntax tree into the words bash would pass to the
program: quotes removed, backslashes resolved, ``$'..'`` decoded, brace expansion applied
(``{rm,-rf,/}`` is three words), an unquoted ``$IFS`` splitting the word, a leading ``~`` and
``$HOME``/``${HOME}`` read as the home folder. What cannot be known from the text stays marked
in the result:

* `UNKNOWN` — a variable, a substitution: any text, possibly none;
* `SOMETHING` — text that is known not to be empty (``${X:?}``, ``$((...))``, ``<(...)``);
* `HOME` — the home folder (only meaningful at the start of a word);
* `INPUT` — after `UNKNOWN`: text read from input (``while read f; do ...; done < list``).

``${X:-default}`` is read as its default (the variable may be unset). A word also carries the
command and process substitutions it contains (`Word.subs`), so the walker can tell what they
produce, and whether an unquoted glob character is left (`Word.glob`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import pairwise

from toolwire.safety.bash._syntax import Node, node_text

__all__ = [
    "HOME",
    "INPUT",
    "MAX_BRACE_WORDS",
    "SOMETHING",
    "UNKNOWN",
    "TooComplexError",
    "Word",
    "brace_words",
    "display",
    "expand_word",
    "resolve_backslashes",
]

UNKNOWN = "\x00"
HOME = "\x01"
SOMETHING = "\x03"
INPUT = "\x07"
"""Follows `UNKNOWN` in a value read from input the line does not show (``read f < list``)."""
_SPLIT = "\x02"  # an unquoted $IFS: the word splits here
MAX_BRACE_WORDS = 256
"""A word whose brace expansion yields more words than this is refused as too complex."""

# quoted characters that would otherwise be special, kept apart until the very end
_PROTECT = {
    "{": "\ue000",
    "}": "\ue001",
    ",": "\ue002",
    "*": "\ue003",
    "?": "\ue004",
    "[": "\ue005",
}
_RESTORE = str.maketrans({value: key for key, value in _PROTECT.items()})
_PROTECT_TABLE = str.maketrans(_PROTECT)
_GLOB = frozenset("*?[")
_SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b",
    "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_BRACES = str.maketrans({key: _PROTECT[key] for key in "{},"})
_ALT_OPEN, _ALT_SEP, _ALT_CLOSE = "\x05", "\x04", "\x06"  # a variable's several values
_ALTERNATIVES = str.maketrans({_ALT_OPEN: "{", _ALT_SEP: ",", _ALT_CLOSE: "}"})
_VARIABLES: ContextVar[dict[str, tuple[str, ...]] | None] = ContextVar(
    "toolwire_guard_variables", default=None
)
_DEFAULTING = frozenset({":-", "-", ":=", "="})
_NON_EMPTY = frozenset({":?", "?"})


class TooComplexError(ValueError):
    """The command is too large, too deep or expands to too many words to be checked."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word after static expansion.

    Attributes:
        text: The text, with `UNKNOWN`, `SOMETHING` and `HOME` marking what is not known.
        glob: Whether an unquoted ``*``, ``?`` or ``[`` is left (the shell would glob it).
        subs: The command and process substitutions inside the word, outermost first.
        splits: Whether the word is one unquoted substitution, whose output the shell splits
            into words.
    """

    text: str
    glob: bool = False
    subs: tuple[Node, ...] = field(default=(), compare=False)
    splits: bool = False

    @property
    def known(self) -> bool:
        """Whether the whole text is known."""
        return UNKNOWN not in self.text and SOMETHING not in self.text


def display(text: str) -> str:
    """``text`` for a message: the home folder as ``~``, unknown parts as ``…``."""
    return text.replace(HOME, "~").replace(UNKNOWN, "…").replace(SOMETHING, "…").replace(INPUT, "")


@contextmanager
def known_variables() -> Iterator[dict[str, tuple[str, ...]]]:
    """A fresh table of the values variables are known to hold (``X=/``, ``for d in /usr /etc``),
    read by `expand_word` until the ``with`` block ends. Several values expand as brace
    alternatives would, so each is judged."""
    table: dict[str, tuple[str, ...]] = {}
    token = _VARIABLES.set(table)
    try:
        yield table
    finally:
        _VARIABLES.reset(token)


def expand_word(node: Node) -> list[Word]:
    """The words ``node`` expands to (brace expansion and ``$IFS`` can make several, an unquoted
    unknown alone stays one `UNKNOWN` word).

    Raises:
        TooComplexError: brace expansion yields more than `MAX_BRACE_WORDS` words.
    """
    subs: list[Node] = []
    raw = _tilde(node, _piece(node, False, subs))
    if _ALT_OPEN in raw:
        raw = raw.translate(_ALTERNATIVES)
    bare = node.type == "command_substitution"
    words: list[Word] = []
    for expanded in _brace_expand(raw):
        for part in expanded.split(_SPLIT):
            if part == "" and _SPLIT in expanded:
                continue
            glob = not _GLOB.isdisjoint(part)
            words.append(Word(part.translate(_RESTORE), glob, tuple(subs), bare))
    return words


def brace_words(text: str) -> list[str]:
    """The brace expansion of unquoted ``text`` (for text that did not parse).

    Raises:
        TooComplexError: it yields more than `MAX_BRACE_WORDS` words.
    """
    return _brace_expand(text)


def _tilde(node: Node, raw: str) -> str:
    first = node
    while first.type == "concatenation" and first.child_count:
        first = first.children[0]
    if first.type != "word" or not raw.startswith("~"):
        return raw
    end = raw.find("/")
    return HOME + (raw[end:] if end >= 0 else "")


def _piece(node: Node, quoted: bool, subs: list[Node]) -> str:
    kind = node.type
    if kind in ("word", "number"):
        return _unquoted_word(node_text(node)) if not quoted else node_text(node)
    if kind == "raw_string":
        return node_text(node)[1:-1].translate(_PROTECT_TABLE)
    if kind == "ansi_c_string":
        return decode_ansi_c(node_text(node)[2:-1]).translate(_PROTECT_TABLE)
    if kind in ("string", "translated_string"):
        return _string(node, subs)
    if kind == "concatenation":
        return _concatenation(node, quoted, subs)
    if kind in ("simple_expansion", "expansion"):
        return _expansion(node, quoted, subs)
    if kind == "command_substitution":
        subs.append(node)
        return SOMETHING  # rarely empty: "$(pwd)"/* is not /*
    if kind == "process_substitution":
        subs.append(node)
        return SOMETHING
    if kind == "arithmetic_expansion":
        return SOMETHING
    if kind == "brace_expression":
        return node_text(node)
    return UNKNOWN


def _concatenation(node: Node, quoted: bool, subs: list[Node]) -> str:
    parts: list[str] = []
    children = node.children
    for index, child in enumerate(children):
        following = children[index + 1] if index + 1 < len(children) else None
        if child.type == "$" and following is not None and following.type == "string":
            continue  # $"..." is a translated string
        if child.type == "$":
            parts.append(UNKNOWN)  # a "$" the grammar could not attach to a name
            continue
        parts.append(_piece(child, quoted, subs))
    return "".join(parts)


def _string(node: Node, subs: list[Node]) -> str:
    """A double-quoted string; the newlines the grammar leaves between its parts are kept
    (``"import os<newline>while 1: os.fork()"`` is two lines of code)."""
    parts: list[str] = []
    data = node.text or b""
    cursor = -1
    for child in node.children:
        if 0 <= cursor < child.start_byte:
            gap = data[cursor - node.start_byte : child.start_byte - node.start_byte]
            parts.append(_double_quoted(gap.decode("utf-8", "replace")).translate(_PROTECT_TABLE))
        cursor = child.end_byte
        if child.type == "string_content":
            parts.append(_double_quoted(node_text(child)).translate(_PROTECT_TABLE))
        elif child.is_named:
            parts.append(_piece(child, True, subs).translate(_PROTECT_TABLE))
    return "".join(parts)


def _expansion(node: Node, quoted: bool, subs: list[Node]) -> str:
    name, operator, leading = "", "", ""
    values: list[Node] = []
    for index, child in enumerate(node.children):
        if child.type in ("variable_name", "special_variable_name") and not name:
            name = node_text(child)
        elif node.field_name_for_child(index) == "operator":
            leading = leading or ("" if name else child.type)
            operator = operator or child.type
        elif child.is_named and name:
            values.append(child)
    if leading in ("#", "!"):
        return SOMETHING if leading == "#" else UNKNOWN  # ${#X} is a length, ${!X} indirect
    if name == "IFS":
        return " " if quoted else _SPLIT
    if operator in _NON_EMPTY:
        return HOME if name == "HOME" else SOMETHING
    if operator in _DEFAULTING:
        return "".join(_piece(value, quoted, subs) for value in values)
    if operator:
        return UNKNOWN
    if name == "HOME":
        return HOME
    known = (_VARIABLES.get() or {}).get(name)
    if not known:
        return UNKNOWN
    kept = [
        v.translate(_BRACES) if quoted else v.translate(_BRACES).replace(" ", _SPLIT) for v in known
    ]
    return kept[0] if len(kept) == 1 else _ALT_OPEN + _ALT_SEP.join(kept) + _ALT_CLOSE


def resolve_backslashes(text: str, escaped: Callable[[str], str], *, trailing: str = "") -> str:
    """``text`` with each backslash and the character after it replaced by ``escaped(char)``;
    a backslash that ends ``text`` becomes ``trailing``."""
    if "\\" not in text:
        return text
    out: list[str] = []
    escaping = False
    for char in text:
        if escaping:
            out.append(escaped(char))
            escaping = False
        elif char == "\\":
            escaping = True
        else:
            out.append(char)
    if escaping:
        out.append(trailing)
    return "".join(out)


def _unquoted_word(text: str) -> str:
    return resolve_backslashes(text, lambda char: _PROTECT.get(char, char))


def _double_quoted(text: str) -> str:
    return resolve_backslashes(
        text, lambda char: char if char in '$`"\\' else "\\" + char, trailing="\\"
    )


def decode_ansi_c(body: str) -> str:
    """The text of ``$'body'`` (``\\n``, ``\\xHH``, ``\\NNN``, ``\\uHHHH``, ``\\cX``, ...)."""
    out: list[str] = []
    index, length = 0, len(body)
    while index < length:
        char = body[index]
        if char != "\\" or index + 1 >= length:
            out.append(char)
            index += 1
            continue
        code = body[index + 1]
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
            index += 2
        elif code in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[code]
            index = _hex_escape(body, index + 2, width, out)
        elif code in "01234567":
            end = index + 1
            while end < length and end < index + 4 and body[end] in "01234567":
                end += 1
            out.append(chr(int(body[index + 1 : end], 8) & 0xFF))
            index = end
        elif code == "c" and index + 2 < length:
            out.append(chr(ord(body[index + 2]) & 0x1F))
            index += 3
        else:
            out.append("\\" + code)
            index += 2
    return "".join(out)


def _hex_escape(body: str, start: int, width: int, out: list[str]) -> int:
    end = start
    while end < len(body) and end < start + width and body[end] in "0123456789abcdefABCDEF":
        end += 1
    if end == start:
        out.append("\\" + body[start - 1])
        return start
    value = int(body[start:end], 16)
    out.append(chr(value) if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else "\ufffd")
    return end


def _brace_expand(text: str) -> list[str]:
    """Bash brace expansion of the unquoted braces in ``text`` (quoted ones are protected)."""
    if "{" not in text:
        return [text]
    done: list[str] = []
    pending = [text]
    while pending:
        current = pending.pop()
        alternatives = _first_brace(current)
        if alternatives is None:
            done.append(current)
        else:
            pending.extend(reversed(alternatives))
        if len(done) + len(pending) > MAX_BRACE_WORDS:
            raise TooComplexError(f"brace expansion yields more than {MAX_BRACE_WORDS} words")
    return done


def _first_brace(text: str) -> list[str] | None:
    """The expansions of the first expandable ``{...}`` in ``text``, or ``None``."""
    start = text.find("{")
    while start >= 0:
        depth, commas, index = 0, [], start
        while index < len(text):
            char = text[index]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    break
            elif char == "," and depth == 1:
                commas.append(index)
            index += 1
        if index >= len(text):
            return None
        head, body, tail = text[:start], text[start + 1 : index], text[index + 1 :]
        if commas:
            cuts = [start, *commas, index]
            return [head + text[a + 1 : b] + tail for a, b in pairwise(cuts)]
        sequence = _sequence(body)
        if sequence is not None:
            return [head + item + tail for item in sequence]
        start = text.find("{", start + 1)
    return None


def _sequence(body: str) -> list[str] | None:
    parts = body.split("..")
    if len(parts) not in (2, 3):
        return None
    first, last = parts[0], parts[1]
    if len(first) == 1 and len(last) == 1 and first.isalpha() and last.isalpha():
        low, high = sorted((ord(first), ord(last)))
        if high - low > MAX_BRACE_WORDS:
            raise TooComplexError("a brace sequence is too long")
        return [chr(code) for code in range(low, high + 1)]
    try:
        low, high = sorted((int(first), int(last)))
    except ValueError:
        return None
    if high - low > MAX_BRACE_WORDS:
        raise TooComplexError("a brace sequence is too long")
    return [str(number) for number in range(low, high + 1)]
