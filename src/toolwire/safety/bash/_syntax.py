"""Parsing a command line with tree-sitter's bash grammar.

A parser is not shared between threads (`parse` keeps one per thread); the grammar is loaded
once. Two rewrites happen before parsing. Line continuations (a backslash before a newline)
are joined, as bash joins them before it splits words: tree-sitter reads them as blanks, which
would cut ``r\\<newline>m`` into two words. ``$IFS`` and ``${IFS...}`` become a blank, which
is what they split words at (tree-sitter misreads ``a$IFS-b$IFS/``); inside quotes this only
changes data, never what runs.
"""

from __future__ import annotations

import threading
from typing import Final

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

from toolwire.safety.linear_regex import linear

__all__ = ["Node", "join_continuations", "node_text", "parse"]

_LANGUAGE: Final = Language(tree_sitter_bash.language())
_LOCAL = threading.local()
_IFS = linear(r"\$IFS\b|\$\{IFS[^}]*\}")


def parse(source: str) -> Tree:
    """The syntax tree of ``source`` (continuations joined first; never raises)."""
    parser: Parser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = Parser(_LANGUAGE)
        _LOCAL.parser = parser
    text = join_continuations(source)
    if "IFS" in text:
        text = _IFS.sub(" ", text)
    data = text.encode("utf-8", "surrogatepass")
    return parser.parse(data)


def join_continuations(source: str) -> str:
    """``source`` without its line continuations (an odd run of backslashes before a newline
    loses its last backslash and the newline). One pass over the text."""
    if "\\\n" not in source:
        return source
    out: list[str] = []
    run = 0
    for char in source:
        if char == "\n" and run % 2 == 1:
            out.pop()
            run = 0
            continue
        run = run + 1 if char == "\\" else 0
        out.append(char)
    return "".join(out)


def node_text(node: Node) -> str:
    """The source text of ``node``."""
    data = node.text
    if not data:
        return ""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # a node that cuts a character (inside an ERROR)
        return data.decode("utf-8", "replace")
