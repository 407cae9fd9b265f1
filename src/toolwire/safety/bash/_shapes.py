"""What the shape of a syntax tree says, for the walker (`toolwire.safety.bash._walk`).

`check_depth` refuses a tree nested too deeply; `chain` reads ``a && b || c`` flat;
`is_endless` tells a loop that never ends (``while true``, ``for ((;;))``); `split_redirect`
finds a redirection whose target stands on a later line; `stage_name` is a pipeline stage's
command name; `substitution_input` is what an output process substitution ``>(...)`` reads.
"""

from __future__ import annotations

from typing import Final

from toolwire.safety.bash._flows import DOWNLOADERS
from toolwire.safety.bash._model import UNKNOWN_INPUT, Flow
from toolwire.safety.bash._syntax import Node, node_text
from toolwire.safety.bash._words import TooComplexError

__all__ = [
    "MAX_TREE_DEPTH",
    "chain",
    "check_depth",
    "is_endless",
    "split_redirect",
    "stage_name",
    "substitution_input",
]

MAX_TREE_DEPTH: Final = 150
"""A syntax tree nested deeper than this is refused as too complex."""
_ENDLESS = frozenset({"true", ":", "[ 1 ]", "((1))", "(( 1 ))", "/bin/true"})


def split_redirect(root: Node) -> bool:
    """Whether a redirection's target stands on a later line than its operator (``<`` then a
    newline). bash refuses that line and goes on with the next, where tree-sitter takes the
    next line's first word as the target: the line is then read as one the parser could not."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "file_redirect":
            target = node.child_by_field_name("destination")
            if target is not None and target.start_byte > node.start_byte:
                data = node.text or b""
                gap = data[: target.start_byte - node.start_byte].replace(b"\\\n", b"")
                if b"\n" in gap:
                    return True
        stack.extend(node.children)
    return False


def stage_name(stage: Node) -> str:
    if stage.type != "command":
        return ""
    name = stage.child_by_field_name("name")
    return node_text(name).lstrip("\\") if name is not None else ""


def substitution_input(node: Node, stdin: Flow) -> Flow:
    """What ``>(...)`` in ``node``'s redirections or arguments reads: a downloader's output, or
    what ``tee``/``cat`` pass on; unknown otherwise."""
    name = stage_name(node).rsplit("/", 1)[-1]
    if name in DOWNLOADERS or stdin.kind in ("download", "encoded"):
        return Flow("download") if name in DOWNLOADERS else stdin
    return stdin if name in ("tee", "cat") else UNKNOWN_INPUT


def is_endless(node: Node) -> bool:
    if node.type == "c_style_for_statement":
        return node.child_by_field_name("condition") is None
    if node.type != "while_statement":
        return False
    keyword = node.children[0].type if node.children else ""
    conditions = [
        node_text(c).strip() for c in node.children_by_field_name("condition") if c.is_named
    ]
    wanted = {"false"} if keyword == "until" else _ENDLESS
    return len(conditions) == 1 and conditions[0] in wanted


def check_depth(root: Node) -> None:
    """Refuse a tree nested deeper than `MAX_TREE_DEPTH` (a chain ``a && b && ...`` nests in
    the grammar but is walked flat, so it does not count)."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise TooComplexError(f"the command nests more than {MAX_TREE_DEPTH} levels deep")
        chained = node.type == "list"
        stack.extend(
            (child, depth if chained and child.type == "list" else depth + 1)
            for child in node.children
        )


def chain(node: Node) -> list[Node]:
    """The commands of ``a && b || c ...`` in order; the grammar nests the chain to the left,
    this reads it without recursion."""
    items: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "list":
            stack.extend(reversed(current.named_children))
        else:
            items.append(current)
    return items
