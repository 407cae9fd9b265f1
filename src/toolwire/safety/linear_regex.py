"""Linear-time regular expressions: every pattern that meets untrusted text is compiled here.

Python's ``re`` backtracks: a pattern such as ``git(?:\\s+--?[\\w-]+)*\\s+status`` tries every
way of splitting ``--x --x --x ...`` before it gives up, so a 100-character command can block
the event loop for minutes. `linear` compiles with RE2 (Google's automaton-based engine, PyPI
``google-re2``), whose matching time is linear in the text for every pattern. The reducers,
the safety scans and the presenter compile all their patterns through it (a test checks that
none of those modules imports ``re``), and `registered_patterns` lists them for the tests and
``benchmarks/bench_regex.py``.

```python
from toolwire.safety.linear_regex import linear

_COMMAND = linear(r"\\bgit(?:\\s+--?[\\w-]+)*\\s+status\\b")
_COMMAND.search("git " + "--x " * 10_000 + "log")  # None, in microseconds
```

Patterns are written in Python's syntax (`toolwire.safety._linear_syntax` translates them) and
behave as in ``re``, except that:

* lookarounds and backreferences do not exist in a linear engine and raise `ValueError`:
  consume the context instead, or check it in code;
* ``\\d``, ``\\w`` and ``\\b`` are ASCII; ``\\s`` and ``\\S`` keep Python's Unicode whitespace
  (``\\xa0``, ``\\u3000``, ...), so no-break spaces cannot slip past a scan;
* ``$`` without `re.MULTILINE` matches only at the very end, not before a final newline;
* `LinearPattern.sub` inserts a string replacement literally (no ``\\1``), or calls a function.

Only the `re.IGNORECASE`, `re.MULTILINE` and `re.DOTALL` flags are accepted. Lone surrogates
(text decoded with ``surrogateescape``) are matched as U+FFFD would be, and come back as they
were. Matching drives RE2's compiled binding (``re2._re2``) directly, as the ``re2`` module
itself does: its Python wrapper costs several microseconds per call, and reducers call once
per line.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, Final, Protocol, final

import re2  # type: ignore[import-untyped]

from toolwire.safety._linear_syntax import escape, to_re2

__all__ = [
    "LinearMatch",
    "LinearPattern",
    "Replacement",
    "escape",
    "linear",
    "registered_patterns",
]

_BINDING: Final[Any] = re2._re2
_UNANCHORED: Final = _BINDING.RE2.Anchor.UNANCHORED
_AT_START: Final = _BINDING.RE2.Anchor.ANCHOR_START
_WHOLE: Final = _BINDING.RE2.Anchor.ANCHOR_BOTH
_SURROGATE: Final = re.compile("[\ud800-\udfff]")  # one character class: cannot backtrack
_REGISTERED: list[LinearPattern] = []


class LinearMatch(Protocol):
    """A match of a `LinearPattern`: the part of `re.Match` the package uses.

    Spans are in characters. ``start``, ``end`` and ``span`` take group numbers only.
    """

    def group(self, group: int | str = 0, /) -> str | Any:
        """The text of one group (``None`` when it did not take part in the match)."""

    def __getitem__(self, group: int | str, /) -> str | Any:
        """``match[group]`` is ``match.group(group)``."""

    def groups(self, default: str | None = None) -> tuple[str | Any, ...]:
        """The texts of all numbered groups."""

    def groupdict(self, default: str | None = None) -> dict[str, str | Any]:
        """The texts of all named groups."""

    def start(self, group: int = 0, /) -> int:
        """Where the group starts (-1 when it did not take part)."""

    def end(self, group: int = 0, /) -> int:
        """Where the group ends (-1 when it did not take part)."""

    def span(self, group: int = 0, /) -> tuple[int, int]:
        """``(start, end)`` of the group."""


Replacement = str | Callable[[LinearMatch], str]
"""What replaces a match: a literal string, or a function of the match."""


@final
class LinearPattern:
    """A compiled pattern whose matching time is linear in the text (see the module docstring).

    Attributes:
        source: The pattern as written, in Python's syntax.
        flags: The `re` flags it was compiled with.
        owner: The module that compiled it.
        groupindex: Group name → group number.
        engine: ``"re2"``.
    """

    __slots__ = ("_groups", "_regex", "flags", "groupindex", "owner", "source")

    engine: Final = "re2"

    def __init__(self, source: str, flags: int, owner: str) -> None:
        self.source = source
        self.flags = flags
        self.owner = owner
        regex = _BINDING.RE2(to_re2(source, flags).encode(), re2.Options())
        if not regex.ok():
            raise ValueError(f"cannot compile {source!r} for a linear engine: {regex.error()}")
        self._regex: Any = regex
        self._groups: int = regex.NumberOfCapturingGroups()
        self.groupindex: dict[str, int] = {
            name.decode(): number for name, number in regex.NamedCapturingGroups()
        }

    def search(self, text: str) -> LinearMatch | None:
        """The first match anywhere in ``text``."""
        return next(self._scan(_UNANCHORED, text), None)

    def match(self, text: str) -> LinearMatch | None:
        """A match at the start of ``text``."""
        return next(self._scan(_AT_START, text), None)

    def fullmatch(self, text: str) -> LinearMatch | None:
        """A match of the whole of ``text``."""
        return next(self._scan(_WHOLE, text), None)

    def finditer(self, text: str) -> Iterator[LinearMatch]:
        """Every non-overlapping match, left to right."""
        return self._scan(_UNANCHORED, text)

    def findall(self, text: str) -> list[Any]:
        """Like `re.Pattern.findall`: the matches, one group's texts, or tuples of groups."""
        if self._groups == 0:
            return [found.group(0) for found in self.finditer(text)]
        if self._groups == 1:
            return [found.group(1) or "" for found in self.finditer(text)]
        return [found.groups("") for found in self.finditer(text)]

    def subn(self, repl: Replacement, text: str) -> tuple[str, int]:
        """Replace every match; return the new text and the number of replacements.

        A string ``repl`` is inserted literally; a function gets each match.
        """
        pieces: list[str] = []
        end = 0
        for found in self.finditer(text):
            pieces.append(text[end : found.start()])
            pieces.append(repl if isinstance(repl, str) else repl(found))
            end = found.end()
        if not pieces:
            return text, 0
        pieces.append(text[end:])
        return "".join(pieces), len(pieces) // 2

    def sub(self, repl: Replacement, text: str) -> str:
        """`subn` without the count."""
        return self.subn(repl, text)[0]

    def __repr__(self) -> str:
        return f"LinearPattern({self.source!r})"

    def _scan(self, anchor: Any, text: str) -> Iterator[_Match]:
        try:
            data = text.encode()
        except UnicodeEncodeError:  # lone surrogates: UTF-8 cannot carry them
            data = _SURROGATE.sub("\ufffd", text).encode()
        size = len(data)
        to_chars = None if size == len(text) else _CharOffsets(data)
        pos = 0
        while True:
            spans: list[tuple[int, int]] = self._regex.Match(anchor, data, pos, size)
            start, end = spans[0]
            if start < 0:
                return
            yield _Match(text, spans if to_chars is None else to_chars(spans), self.groupindex)
            if end == size:
                return
            # after an empty match, the next search starts one character on
            pos = end if end > start else end + _utf8_length(data[end])


def linear(pattern: str, flags: int = 0) -> LinearPattern:
    """Compile ``pattern`` (Python syntax) for linear-time matching and register it.

    Args:
        pattern: The regular expression; see the module docstring for what differs from `re`.
        flags: Any of `re.IGNORECASE`, `re.MULTILINE` and `re.DOTALL`.

    Raises:
        ValueError: The pattern uses a lookaround, a backreference or another construct a
            linear engine cannot run, or another flag was given.
    """
    caller = sys._getframe(1).f_globals.get("__name__", "?")
    compiled = LinearPattern(pattern, flags, str(caller))
    _REGISTERED.append(compiled)
    return compiled


def registered_patterns() -> tuple[LinearPattern, ...]:
    """Every pattern compiled by `linear` so far, in compilation order."""
    return tuple(_REGISTERED)


@final
class _Match:
    """A match: the text and the character spans of its groups."""

    __slots__ = ("_groupindex", "_spans", "_text")

    def __init__(self, text: str, spans: list[tuple[int, int]], groupindex: dict[str, int]):
        self._text = text
        self._spans = spans
        self._groupindex = groupindex

    def group(self, group: int | str = 0, /) -> str | Any:
        start, end = self._spans[group if isinstance(group, int) else self._groupindex[group]]
        return None if start < 0 else self._text[start:end]

    __getitem__ = group

    def groups(self, default: str | None = None) -> tuple[str | Any, ...]:
        return tuple(default if a < 0 else self._text[a:b] for a, b in self._spans[1:])

    def groupdict(self, default: str | None = None) -> dict[str, str | Any]:
        groups = self.groups(default)
        return {name: groups[number - 1] for name, number in self._groupindex.items()}

    def start(self, group: int = 0, /) -> int:
        return self._spans[group][0]

    def end(self, group: int = 0, /) -> int:
        return self._spans[group][1]

    def span(self, group: int = 0, /) -> tuple[int, int]:
        return self._spans[group]


class _CharOffsets:
    """Byte offsets → character offsets in UTF-8 ``data``, counted on from the last one asked
    (matches come left to right, so the whole scan reads the text once)."""

    __slots__ = ("_byte", "_char", "_data")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._byte = self._char = 0

    def __call__(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        if len(spans) == 1:
            start, end = spans[0]
            return [(self._at(start), self._at(end))]
        chars = {offset: self._at(offset) for offset in sorted({o for span in spans for o in span})}
        return [(chars[start], chars[end]) for start, end in spans]

    def _at(self, offset: int) -> int:
        if offset < 0:
            return -1  # a group that did not take part
        self._char += _BINDING.BytesToCharLen(self._data, self._byte, offset)
        self._byte = offset
        return self._char


def _utf8_length(lead: int) -> int:
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
