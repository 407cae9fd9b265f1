"""What earlier commands of a line leave for later ones: variables and the working folder.

`assignment` reads what ``X=value`` or ``for X in a b`` gives a variable, `read_values` what
``read NAME`` fed known text gives its names, and `moved` where ``cd`` leads. The walker
(`toolwire.safety.bash._walk`) keeps the results and expands later words with them.
"""

from __future__ import annotations

from collections.abc import Callable

from toolwire.safety.bash._model import Segment
from toolwire.safety.bash._syntax import Node, node_text
from toolwire.safety.bash._words import HOME, INPUT, SOMETHING, UNKNOWN, Word, expand_word

__all__ = ["Assignment", "assignment", "moved", "read_values"]

Assignment = tuple[str, tuple[str, ...], tuple[str, ...]]
"""A variable's name, every value it may take as read (unknown parts marked), and the values
known whole (at most 16; none: the variable is forgotten)."""
_READ_VALUE_OPTIONS = frozenset({"-p", "-d", "-n", "-N", "-t", "-u", "-a", "-i"})


def assignment(node: Node, substituted: Callable[[list[Word]], list[Word]]) -> Assignment | None:
    """What a ``variable_assignment`` or ``for_statement`` node gives its variable.

    Args:
        node: The node.
        substituted: The walker's reading of words whose substitution output is known.
    """
    name_node = node.child_by_field_name(
        "name" if node.type == "variable_assignment" else "variable"
    )
    if name_node is None:
        return None
    name = node_text(name_node)
    if node.type == "for_statement":
        values = [w.text for v in node.children_by_field_name("value") for w in expand_word(v)]
    else:
        value = node.child_by_field_name("value")
        words = substituted(expand_word(value)) if value is not None else []
        values = [" ".join(word.text for word in words)]
        if "+=" in node_text(node)[: len(name) + 2]:
            return name, (), ()
    known = tuple(v for v in values if UNKNOWN not in v and SOMETHING not in v)[:16]
    return name, tuple(values[:16]), known


def read_values(segment: Segment) -> dict[str, tuple[str, ...] | None]:
    """What ``read NAME...`` gives each name: the text it is fed when the line says it,
    ``UNKNOWN + INPUT`` when it reads input the line does not show, ``None``: forgotten."""
    names: list[str] = []
    args = segment.argv[1:]
    index = 0
    while index < len(args):
        word = args[index]
        index += 2 if word in _READ_VALUE_OPTIONS else 1
        if not word.startswith("-"):
            names.append(word)
    if segment.stdin.kind != "data":
        return dict.fromkeys(names, (UNKNOWN + INPUT,))  # read from input: unknown, and marked
    line = segment.stdin.text.split("\n", 1)[0]
    found: dict[str, tuple[str, ...] | None] = {}
    for position, name in enumerate(names):
        last = position == len(names) - 1
        parts = line.split(None, len(names) - 1) if line else []
        value = parts[position] if position < len(parts) else ""
        if line and (value or last):
            found[name] = (line if len(names) == 1 else value,)
        else:
            found[name] = None
    return found


def moved(cwd: str, args: tuple[str, ...]) -> str:
    """Where ``cd args`` leads from ``cwd`` (``""`` for the starting folder)."""
    operands = [arg for arg in args if not arg.startswith("-") or arg == "-"]
    target = operands[0] if operands else HOME
    if target == "-" or UNKNOWN in target or SOMETHING in target:
        return ""
    if target.startswith(("/", HOME)) or not cwd:
        return target
    return cwd.rstrip("/") + "/" + target
