"""Every simple command a line would run, as the command guard reads it (for inspection).

`split_command` walks the line with the guard's walker (`toolwire.safety.bash._walk`) and no
rules, and returns the resolved commands in the order it met them: nested ones (substitutions,
``sh -c`` scripts, ``find -exec``, ``xargs``) included.
"""

from __future__ import annotations

from toolwire.safety.bash._model import Segment
from toolwire.safety.bash._walk import MAX_NESTING, Walker
from toolwire.safety.bash._words import TooComplexError

__all__ = ["MAX_NESTING", "CommandTooComplexError", "Segment", "split_command"]

CommandTooComplexError = TooComplexError
"""Raised by `split_command` for a line too large or too deeply nested to read."""


def split_command(command: str) -> list[Segment]:
    """The simple commands ``command`` would run, nested ones included.

    Raises:
        CommandTooComplexError: the line nests code deeper than `MAX_NESTING` levels, or
            expands to too much to read.
    """
    walker = Walker(lambda _segment: None, len(command), collect=True)
    walker.check(command)
    return walker.segments
