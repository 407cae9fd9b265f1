"""What the walker hands the rules: a simple command, its redirections and its input."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from toolwire.safety.bash._words import SOMETHING, UNKNOWN, Word, display

__all__ = ["NO_INPUT", "UNKNOWN_INPUT", "Finding", "Flow", "FlowKind", "Redirect", "Segment"]

FlowKind = Literal["none", "unknown", "data", "download", "encoded"]
_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&", "&>|"})


@dataclass(frozen=True, slots=True)
class Flow:
    """What arrives on a command's standard input.

    Attributes:
        kind: ``none`` (nothing piped), ``unknown`` (a file or a program's output),
            ``data`` (text known from the line: an ``echo``, a here-doc, a here-string),
            ``download`` (bytes fetched from the network, however transformed since), or
            ``encoded`` (text decoded or transformed so that it cannot be read here).
        text: The text, for ``data``.
        hints: Paths the producer worked on (``find / | xargs ...``), for ``unknown``.
    """

    kind: FlowKind
    text: str = ""
    hints: tuple[str, ...] = ()


NO_INPUT = Flow("none")
UNKNOWN_INPUT = Flow("unknown")


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule a command breaks: its id, a short reason, and the command that broke it."""

    rule: str
    reason: str
    segment: str


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirection: its operator (``>``, ``>>``, ``<``, ``&>``, ...) and expanded target
    (`word` keeps the target's substitutions, for ``< <(curl ...)``)."""

    operator: str
    target: str
    word: Word | None = field(default=None, compare=False)

    @property
    def writes(self) -> bool:
        """Whether it opens ``target`` for writing (``2>&1`` and ``>&-`` do not)."""
        if self.operator not in _WRITES:
            return False
        return not (self.operator == ">&" and (self.target.isdigit() or self.target == "-"))


@dataclass(frozen=True, kw_only=True, slots=True)
class Segment:
    """One simple command as it would run.

    Attributes:
        words: Its words after static expansion, as written (wrappers included).
        args: The command and its arguments after looking through assignments and wrappers.
        redirects: Its redirections, those of enclosing groups included.
        stdin: What arrives on its standard input.
        cwd: The folder an earlier ``cd`` of the line moved to (``""``: where it started).
    """

    words: tuple[Word, ...]
    args: tuple[Word, ...]
    redirects: tuple[Redirect, ...] = ()
    stdin: Flow = NO_INPUT
    cwd: str = ""
    argv: tuple[str, ...] = field(init=False, compare=False)
    """The texts of `args`."""
    program: str = field(init=False, compare=False)
    """The basename of the command word; `UNKNOWN` when a variable, a substitution or a glob
    hides it; ``""`` when there is no command (only redirections)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "argv", tuple(word.text for word in self.args))
        object.__setattr__(self, "program", _program(self.args))

    @property
    def text(self) -> str:
        """The command for a message (home as ``~``, unknown parts as ``…``)."""
        shown = " ".join(display(word.text) for word in self.words)
        targets = " ".join(f"{r.operator} {display(r.target)}" for r in self.redirects)
        return f"{shown} {targets}".strip()


def _program(args: tuple[Word, ...]) -> str:
    if not args:
        return ""
    first = args[0]
    if first.glob or UNKNOWN in first.text or SOMETHING in first.text:
        return UNKNOWN
    return first.text.rsplit("/", 1)[-1]
