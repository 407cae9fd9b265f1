"""Visiting every command a line would run, with what arrives on its standard input.

`Walker.check` parses the line and visits the syntax tree once: lists, pipelines, subshells,
groups, command and process substitutions, here-docs and here-strings, function bodies, loops
and conditionals. Each simple command is resolved (`commands`) and handed to the rules (the
``judge`` callable) with its redirections and its input (`flows`); then the code it runs
besides itself (`nested`) is judged as code (`code_runs`): shell scripts parsed again, inline
interpreter code read by `code_scan`, piped or here-doc'd text judged as the code it becomes,
commands carried by configuration. A download or encoded text reaching a shell or interpreter
is refused whatever its shape, and so is a file downloaded, or written decoded, and run in the
same line. The shapes of the tree it reads are in `shapes`, what earlier commands leave for
later ones (variables, ``cd``) in `line_state`.

Bounds that keep it linear in the line's length: code is parsed again at most `MAX_NESTING`
levels deep, all parses together read at most `BUDGET_FACTOR` times the line, and a tree deeper
than `MAX_TREE_DEPTH` is refused as too complex. A parse error is not a pass: what parsed is
judged, and then the whole line again with its quotes taken away (or word by word).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from tree_sitter import Tree

from toolwire.safety.bash._code_runs import (
    MAX_NESTING,
    CodeRuns,
    Refused,
    WalkContext,
    refuse,
)
from toolwire.safety.bash._commands import command_words, redirect_of, unwrap
from toolwire.safety.bash._config_commands import COMMAND_VARIABLES
from toolwire.safety.bash._fallback import fallback_commands
from toolwire.safety.bash._flows import combine, emits, foreign, printed_text
from toolwire.safety.bash._line_files import LineFiles
from toolwire.safety.bash._line_state import assignment, moved, read_values
from toolwire.safety.bash._model import NO_INPUT, UNKNOWN_INPUT, Finding, Flow, Redirect, Segment
from toolwire.safety.bash._shapes import (
    MAX_TREE_DEPTH,
    chain,
    check_depth,
    is_endless,
    split_redirect,
    stage_name,
    substitution_input,
)
from toolwire.safety.bash._syntax import Node, node_text, parse
from toolwire.safety.bash._words import (
    HOME,
    SOMETHING,
    UNKNOWN,
    TooComplexError,
    Word,
    expand_word,
    known_variables,
)
from toolwire.safety.linear_regex import linear

__all__ = ["BUDGET_FACTOR", "MAX_NESTING", "MAX_TREE_DEPTH", "Judge", "Refused", "Walker"]

BUDGET_FACTOR = 4
"""All the parses of one check read at most this many times the line (plus 64 KiB)."""

Judge = Callable[[Segment], Finding | None]
_COLON_FORK_BOMB = linear(r":\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:")
_HEREDOC_PARTS = frozenset({"heredoc_start", "heredoc_body", "heredoc_end", "herestring_redirect"})
_QUOTES = str.maketrans("", "", "'\"`")
_MAYBE_SPLIT_REDIRECT = linear(r"[<>][ \t]*\n")


class Walker(CodeRuns):
    """One check of one command line (see the module docstring)."""

    def __init__(
        self,
        judge: Judge,
        length: int,
        *,
        collect: bool = False,
        cwd: str = "",
        env: Mapping[str, str] | None = None,
    ) -> None:
        self._judge = judge
        self._budget = BUDGET_FACTOR * length + 65_536
        self._trees: list[Tree] = []  # kept alive: node ids stay unique while they are
        self._sub_flows: dict[int, Flow] = {}
        self._files = LineFiles()
        self._variables: dict[str, tuple[str, ...]] = {}
        self._cwd = HOME + cwd[1:] if cwd.startswith("~") else cwd
        self._env = dict(env or {})
        self._collect = collect
        self.segments: list[Segment] = []

    def check(self, command: str) -> None:
        """Walk ``command``; raises `Refused` or `TooComplexError`."""
        with known_variables() as variables:
            variables.update((name, (value,)) for name, value in self._env.items())
            self._variables = variables
            self._source(command, WalkContext())
        found = self._files.foreign_run()
        if found is not None:
            refuse(*found)

    def _spend(self, source: str, ctx: WalkContext) -> None:
        if ctx.depth > MAX_NESTING:
            raise TooComplexError(f"code nested more than {MAX_NESTING} levels deep")
        self._budget -= len(source) + 1
        if self._budget < 0:
            raise TooComplexError("the command expands to too much code to check")

    def _source(self, source: str, ctx: WalkContext) -> None:
        self._spend(source, ctx)
        tree = parse(source)
        self._trees.append(tree)
        root = tree.root_node
        check_depth(root)
        self._visit(root, ctx)
        if root.has_error or (_MAYBE_SPLIT_REDIRECT.search(source) and split_redirect(root)):
            self._unparsed(source, ctx)

    def _visit(self, node: Node, ctx: WalkContext) -> Flow:
        kind = node.type
        if kind == "command":
            return self._command(node, ctx)
        if kind == "pipeline":
            return self._pipeline(node.named_children, ctx, check_bomb=True)
        if kind == "list":
            return combine([self._visit(item, ctx) for item in chain(node)])
        if kind == "redirected_statement":
            return self._redirected(node, ctx)
        if kind == "function_definition":
            return self._function(node, ctx)
        if kind in ("command_substitution", "process_substitution"):
            output = bool(node.children) and node.children[0].type == ">("
            stdin = ctx.feeds if output else ctx.stdin  # $(cat) reads the command's input
            inner = WalkContext(stdin=stdin, depth=ctx.depth, functions=ctx.functions)
            self._sub_flows[node.id] = self._children(node, inner)
            return NO_INPUT
        if kind == "variable_assignment":  # the value's substitutions first: x=$(echo rm)
            flow = self._children(node, ctx)
            self._assign(node, ctx)
            return flow
        if kind == "for_statement":
            self._assign(node, ctx)
        if kind == "ERROR":
            self._error(node)
        return self._children(node, ctx)

    def _children(self, node: Node, ctx: WalkContext) -> Flow:
        if not node.named_child_count:
            return NO_INPUT
        endless = ctx.endless or is_endless(node)
        flows: list[Flow] = []
        children = node.children
        for index, child in enumerate(children):
            if not child.is_named:
                continue
            following = children[index + 1].type if index + 1 < len(children) else ""
            background = ctx.background or following == "&"
            inner = ctx
            if background != ctx.background or endless != ctx.endless:
                inner = replace(ctx, background=background, endless=endless)
            flows.append(self._visit(child, inner))
        return combine(flows)

    def _command(self, node: Node, ctx: WalkContext) -> Flow:
        stdin = ctx.stdin
        for child in node.named_children:
            if child.type == "herestring_redirect":
                self._visit(child, ctx)
                stdin = self._herestring(child)
        inner = ctx.for_arguments(substitution_input(node, stdin))
        for child in node.named_children:
            if child.type != "herestring_redirect":
                self._visit(child, inner)
        words, redirects = command_words(node)
        words = self._substituted(words)
        segment = Segment(
            words=tuple(words),
            args=unwrap(words),
            redirects=(*ctx.redirects, *redirects),
            stdin=stdin,
            cwd=self._cwd,
        )
        self._segment(segment, ctx)
        flow = emits(segment, stdin)
        if printed_text(segment) is not None:
            fed = foreign([self._sub_flows.get(s.id, NO_INPUT) for w in words for s in w.subs])
            flow = fed or flow
        return flow

    def _substituted(self, words: list[Word]) -> list[Word]:
        """A word that is one substitution whose output is known (``$(echo rm)``) becomes the
        words of that output."""
        out: list[Word] = []
        for word in words:
            sub = word.subs[0] if len(word.subs) == 1 else None
            flow = (
                self._sub_flows.get(sub.id) if sub and sub.type == "command_substitution" else None
            )
            if word.text in (UNKNOWN, SOMETHING) and flow is not None and flow.kind == "data":
                parts = flow.text.split()[:256] if word.splits else [flow.text]
                out.extend(Word(part) for part in parts)
            else:
                out.append(word)
        return out

    def _segment(self, segment: Segment, ctx: WalkContext) -> None:
        if self._collect:
            self.segments.append(segment)
        finding = self._judge(segment)
        if finding is not None:
            raise Refused(finding)
        program = segment.program
        if ctx.background and (program in ctx.functions or ctx.endless):
            what = (
                "a function that starts itself in the background"
                if program in ctx.functions
                else "an endless loop that starts background processes"
            )
            refuse("fork-bomb", f"fork bomb ({what})", segment.text)
        if program == UNKNOWN:  # a hidden program may be a shell: "curl | $SHELL", "$(curl)"
            self._foreign_checked(segment.stdin, segment)
            first = segment.args[0]
            flows = [self._sub_flows.get(sub.id, NO_INPUT) for sub in first.subs]
            self._foreign_checked(foreign(flows) or NO_INPUT, segment)
        self._track_files(segment, ctx)
        if program in ("cd", "pushd"):
            self._cwd = moved(self._cwd, segment.argv[1:])
        elif program == "read":
            self._read(segment)
        self._nested(segment, ctx)

    def _pipeline(self, stages: list[Node], ctx: WalkContext, *, check_bomb: bool) -> Flow:
        flow = ctx.stdin
        calls = 0
        for stage in stages:
            flow = self._visit(stage, ctx.reading(flow))
            calls += stage_name(stage) in ctx.functions
        if check_bomb and calls >= 2:
            refuse("fork-bomb", "fork bomb (a function piped into itself)", node_text(stages[0]))
        return flow

    def _redirected(self, node: Node, ctx: WalkContext) -> Flow:
        stdin = ctx.stdin
        redirects = list(ctx.redirects)
        tails: list[Node] = []
        body = node.child_by_field_name("body")
        feeds = ctx if body is None else replace(ctx, feeds=substitution_input(body, ctx.stdin))
        for index, child in enumerate(node.children):
            if node.field_name_for_child(index) == "redirect":
                stdin = self._redirect(child, feeds, stdin, redirects, tails)
        inner = replace(ctx, stdin=stdin, redirects=tuple(redirects))
        if body is None:
            bare = Segment(
                words=(), args=(), redirects=tuple(redirects), stdin=stdin, cwd=self._cwd
            )
            self._segment(bare, ctx)
            flow = NO_INPUT
        else:
            flow = self._visit(body, inner)
        if any(r.writes for r in redirects[len(ctx.redirects) :]):
            flow = NO_INPUT
        for tail in tails:
            if tail.type == "pipeline" and tail.children and not tail.children[0].is_named:
                flow = self._pipeline(
                    tail.named_children, replace(ctx, stdin=flow), check_bomb=False
                )
            else:
                flow = self._visit(tail, ctx)
        return flow

    def _redirect(
        self,
        node: Node,
        ctx: WalkContext,
        stdin: Flow,
        redirects: list[Redirect],
        tails: list[Node],
    ) -> Flow:
        kind = node.type
        if kind == "herestring_redirect":
            self._visit(node, ctx)
            return self._herestring(node)
        if kind == "file_redirect":
            self._visit(node, ctx)
            found = redirect_of(node)
            if found is None:
                return stdin
            redirects.append(found)
            if found.operator not in ("<", "<>"):
                return stdin
            flow = self._word_flow(found.word) if found.word is not None else UNKNOWN_INPUT
            return (
                flow
                if flow.kind in ("download", "encoded")
                else Flow("unknown", hints=(found.target,))
            )
        if kind != "heredoc_redirect":
            return stdin
        text = ""
        for child in node.named_children:
            if child.type == "heredoc_body":
                self._visit(child, ctx)
                text = node_text(child)
            elif child.type == "file_redirect":
                self._redirect(child, ctx, stdin, redirects, tails)
            elif child.type not in _HEREDOC_PARTS:
                tails.append(child)  # what follows on the line: "| sh", "&& rm ...", "; ls"
        return Flow("data", text)

    def _herestring(self, node: Node) -> Flow:
        words = [word for child in node.named_children for word in expand_word(child)]
        if len(words) == 1:
            return self._word_flow(words[0])
        return Flow("data", " ".join(word.text for word in words))

    def _function(self, node: Node, ctx: WalkContext) -> Flow:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        name = node_text(name_node) if name_node is not None else ""
        if body is not None:
            inner = replace(ctx, functions=(*ctx.functions, name), background=False, endless=False)
            self._visit(body, inner)
        return NO_INPUT

    def _error(self, node: Node) -> None:
        text = node_text(node)
        if _COLON_FORK_BOMB.search(text):
            refuse("fork-bomb", "fork bomb", text[:200])

    def _unparsed(self, source: str, ctx: WalkContext) -> None:
        """A line with a syntax error is judged again without its quotes, or else word by
        word between operators: what the parser could not read is not a pass."""
        stripped = source.translate(_QUOTES)
        if stripped != source:
            self._source(stripped, replace(ctx, depth=ctx.depth + 1))
            return
        for words in fallback_commands(source):
            segment = Segment(
                words=tuple(words), args=unwrap(words), stdin=ctx.stdin, cwd=self._cwd
            )
            self._segment(segment, replace(ctx, depth=ctx.depth + 1))

    def _assign(self, node: Node, ctx: WalkContext) -> None:
        """Remember what ``X=value`` or ``for X in a b`` gives a variable (unknown: forgotten);
        a value that programs run as a command (``GIT_PAGER``, ``EDITOR``...) is judged as one."""
        found = assignment(node, self._substituted)
        if found is None:
            return
        name, values, known = found
        if known:
            self._variables[name] = known
        else:
            self._variables.pop(name, None)
        if name in COMMAND_VARIABLES:
            for value in values:
                self._configured(name, value, ctx)

    def _read(self, segment: Segment) -> None:
        """``read NAME`` fed known text: NAME holds its first line (``read c <<< 'rm -rf ~'``)."""
        for name, value in read_values(segment).items():
            if value is None:
                self._variables.pop(name, None)
            else:
                self._variables[name] = value
