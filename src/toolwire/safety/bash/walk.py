"""Visiting every command a line would run, with what arrives on its standard input.

`Walker.check` parses the line and visits the syntax tree once: lists, pipelines, subshells,
groups, command and process substitutions, here-docs and here-strings, function bodies, loops
and conditionals. Each simple command is resolved (`commands`) and handed to the rules (the
``judge`` callable) with its redirections and its input (`flows`); then the code it runs
besides itself (`nested`) is judged as code: shell scripts parsed again, inline interpreter
code read by `code_scan`, piped or here-doc'd text judged as the code it becomes. A download
or encoded text reaching a shell or interpreter is refused whatever its shape, and so is a
file downloaded and run in the same line.

Bounds that keep it linear in the line's length: code is parsed again at most `MAX_NESTING`
levels deep, all parses together read at most `BUDGET_FACTOR` times the line, and a tree deeper
than `MAX_TREE_DEPTH` is refused as too complex. A parse error is not a pass: what parsed is
judged, and then the whole line again with its quotes taken away (or word by word).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from tree_sitter import Tree

from toolwire.safety.bash.code_scan import scan_code
from toolwire.safety.bash.commands import command_words, redirect_of, unwrap
from toolwire.safety.bash.fallback import fallback_commands
from toolwire.safety.bash.flows import (
    DOWNLOADERS,
    as_source,
    combine,
    emits,
    foreign,
    printed_text,
)
from toolwire.safety.bash.line_files import LineFiles
from toolwire.safety.bash.model import NO_INPUT, UNKNOWN_INPUT, Finding, Flow, Redirect, Segment
from toolwire.safety.bash.nested import nested_of
from toolwire.safety.bash.syntax import Node, node_text, parse
from toolwire.safety.bash.words import (
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

MAX_NESTING = 8
"""Code inside code (``bash -c "sh -c '...'"``) deeper than this is refused, not skipped."""
MAX_TREE_DEPTH = 150
"""A syntax tree nested deeper than this is refused as too complex."""
BUDGET_FACTOR = 4
"""All the parses of one check read at most this many times the line (plus 64 KiB)."""

Judge = Callable[[Segment], Finding | None]
_COLON_FORK_BOMB = linear(r":\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:")
_ENDLESS = frozenset({"true", ":", "[ 1 ]", "((1))", "(( 1 ))", "/bin/true"})
_HEREDOC_PARTS = frozenset({"heredoc_start", "heredoc_body", "heredoc_end", "herestring_redirect"})
_QUOTES = str.maketrans("", "", "'\"`")
_MAYBE_SPLIT_REDIRECT = linear(r"[<>][ \t]*\n")


def _split_redirect(root: Node) -> bool:
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


class Refused(Exception):
    """Raised inside the walk when a rule is broken; carries the `Finding`."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.reason)
        self.finding = finding


@dataclass(frozen=True, slots=True)
class _Context:
    stdin: Flow = NO_INPUT
    feeds: Flow = UNKNOWN_INPUT  # what an output process substitution, >(sh), reads
    redirects: tuple[Redirect, ...] = ()
    depth: int = 0
    functions: tuple[str, ...] = ()
    background: bool = False
    endless: bool = False

    def reading(self, stdin: Flow) -> _Context:
        """This context with ``stdin`` as input (``dataclasses.replace`` is slow here)."""
        return _Context(
            stdin, self.feeds, self.redirects, self.depth, self.functions, self.background,
            self.endless,
        )  # fmt: skip

    def for_arguments(self, feeds: Flow) -> _Context:
        """The context of a command's words: not in the background, ``>(...)`` reading
        ``feeds``."""
        return _Context(
            self.stdin, feeds, self.redirects, self.depth, self.functions, False, self.endless
        )


class Walker:
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
            self._source(command, _Context())
        found = self._files.downloaded_and_run()
        if found is not None:
            name, shown = found
            _refuse("download-exec", f"running {name}, downloaded in the same command", shown)

    def _spend(self, source: str, ctx: _Context) -> None:
        if ctx.depth > MAX_NESTING:
            raise TooComplexError(f"code nested more than {MAX_NESTING} levels deep")
        self._budget -= len(source) + 1
        if self._budget < 0:
            raise TooComplexError("the command expands to too much code to check")

    def _source(self, source: str, ctx: _Context) -> None:
        self._spend(source, ctx)
        tree = parse(source)
        self._trees.append(tree)
        root = tree.root_node
        _check_depth(root)
        self._visit(root, ctx)
        if root.has_error or (_MAYBE_SPLIT_REDIRECT.search(source) and _split_redirect(root)):
            self._unparsed(source, ctx)

    def _visit(self, node: Node, ctx: _Context) -> Flow:
        kind = node.type
        if kind == "command":
            return self._command(node, ctx)
        if kind == "pipeline":
            return self._pipeline(node.named_children, ctx, check_bomb=True)
        if kind == "list":
            return combine([self._visit(item, ctx) for item in _chain(node)])
        if kind == "redirected_statement":
            return self._redirected(node, ctx)
        if kind == "function_definition":
            return self._function(node, ctx)
        if kind in ("command_substitution", "process_substitution"):
            output = bool(node.children) and node.children[0].type == ">("
            stdin = ctx.feeds if output else ctx.stdin  # $(cat) reads the command's input
            inner = _Context(stdin=stdin, depth=ctx.depth, functions=ctx.functions)
            self._sub_flows[node.id] = self._children(node, inner)
            return NO_INPUT
        if kind == "variable_assignment":  # the value's substitutions first: x=$(echo rm)
            flow = self._children(node, ctx)
            self._assign(node)
            return flow
        if kind == "for_statement":
            self._assign(node)
        if kind == "ERROR":
            self._error(node)
        return self._children(node, ctx)

    def _children(self, node: Node, ctx: _Context) -> Flow:
        if not node.named_child_count:
            return NO_INPUT
        endless = ctx.endless or _is_endless(node)
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

    def _command(self, node: Node, ctx: _Context) -> Flow:
        stdin = ctx.stdin
        for child in node.named_children:
            if child.type == "herestring_redirect":
                self._visit(child, ctx)
                stdin = self._herestring(child)
        inner = ctx.for_arguments(_feeds(node, stdin))
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

    def _segment(self, segment: Segment, ctx: _Context) -> None:
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
            _refuse("fork-bomb", f"fork bomb ({what})", segment.text)
        if program == UNKNOWN:  # a hidden program may be a shell: "curl | $SHELL", "$(curl)"
            self._foreign_checked(segment.stdin, segment)
            first = segment.args[0]
            flows = [self._sub_flows.get(sub.id, NO_INPUT) for sub in first.subs]
            self._foreign_checked(foreign(flows) or NO_INPUT, segment)
        self._track_files(segment, ctx)
        if program in ("cd", "pushd"):
            self._cwd = _moved(self._cwd, segment.argv[1:])
        elif program == "read":
            self._read(segment)
        self._nested(segment, ctx)

    def _pipeline(self, stages: list[Node], ctx: _Context, *, check_bomb: bool) -> Flow:
        flow = ctx.stdin
        calls = 0
        for stage in stages:
            flow = self._visit(stage, ctx.reading(flow))
            calls += _stage_name(stage) in ctx.functions
        if check_bomb and calls >= 2:
            _refuse("fork-bomb", "fork bomb (a function piped into itself)", node_text(stages[0]))
        return flow

    def _redirected(self, node: Node, ctx: _Context) -> Flow:
        stdin = ctx.stdin
        redirects = list(ctx.redirects)
        tails: list[Node] = []
        body = node.child_by_field_name("body")
        feeds = ctx if body is None else replace(ctx, feeds=_feeds(body, ctx.stdin))
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
        self, node: Node, ctx: _Context, stdin: Flow, redirects: list[Redirect], tails: list[Node]
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

    def _function(self, node: Node, ctx: _Context) -> Flow:
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
            _refuse("fork-bomb", "fork bomb", text[:200])

    def _unparsed(self, source: str, ctx: _Context) -> None:
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

    def _nested(self, segment: Segment, ctx: _Context) -> None:
        found = nested_of(segment)
        inner = _Context(stdin=segment.stdin, depth=ctx.depth + 1)
        for word in found.scripts:
            flow = self._foreign_checked(self._word_flow(word), segment)
            self._source(as_source(flow.text), inner)
        for language, word in found.code:
            flow = self._foreign_checked(self._word_flow(word), segment)
            self._code(language, flow.text, segment, inner)
        if found.stdin_reader:
            self._reader(found.stdin_reader, segment, inner)
        for language, word in found.files:
            self._run_file(language, word, segment, inner)
        for argv in found.commands:
            if inner.depth > MAX_NESTING:
                raise TooComplexError(f"commands nested more than {MAX_NESTING} levels deep")
            built = Segment(words=argv, args=unwrap(argv), stdin=segment.stdin, cwd=self._cwd)
            if segment.program == "xargs" and _runs_code(built):
                self._foreign_checked(segment.stdin, segment)  # curl ... | xargs sh -c
            self._segment(built, inner)

    def _run_file(self, language: str, word: Word, segment: Segment, ctx: _Context) -> None:
        """A script file it runs: a process substitution's output (``bash <(curl ...)``,
        ``source <(echo ...)``) is judged as code; a file written or downloaded earlier in the
        line is judged by what was written, or refused."""
        flows = [self._sub_flows.get(sub.id, NO_INPUT) for sub in word.subs]
        self._foreign_checked(foreign(flows) or NO_INPUT, segment)
        if word.text == SOMETHING and len(flows) == 1 and flows[0].kind == "data":
            self._code(language, flows[0].text, segment, ctx)
        self._ran(language, word.text, segment, ctx)

    def _ran(self, language: str, path: str, segment: Segment, ctx: _Context) -> None:
        written = self._files.ran(path, segment.text)
        if written is not None:
            self._spend(written, ctx)
            self._code(language, written, segment, ctx)

    def _assign(self, node: Node) -> None:
        """Remember what ``X=value`` or ``for X in a b`` gives a variable (unknown: forgotten)."""
        name_node = node.child_by_field_name(
            "name" if node.type == "variable_assignment" else "variable"
        )
        if name_node is None:
            return
        name = node_text(name_node)
        if node.type == "for_statement":
            values = [w.text for v in node.children_by_field_name("value") for w in expand_word(v)]
        else:
            value = node.child_by_field_name("value")
            words = self._substituted(expand_word(value)) if value is not None else []
            values = [" ".join(word.text for word in words)]
            if "+=" in node_text(node)[: len(name) + 2]:
                values = []
        known = tuple(v for v in values if UNKNOWN not in v and SOMETHING not in v)[:16]
        if known:
            self._variables[name] = known
        else:
            self._variables.pop(name, None)

    def _read(self, segment: Segment) -> None:
        """``read NAME`` fed known text: NAME holds its first line (``read c <<< 'rm -rf ~'``)."""
        names: list[str] = []
        args = segment.argv[1:]
        index = 0
        while index < len(args):
            word = args[index]
            index += 2 if word in ("-p", "-d", "-n", "-N", "-t", "-u", "-a", "-i") else 1
            if not word.startswith("-"):
                names.append(word)
        line = segment.stdin.text.split("\n", 1)[0] if segment.stdin.kind == "data" else ""
        for position, name in enumerate(names):
            last = position == len(names) - 1
            parts = line.split(None, len(names) - 1) if line else []
            value = parts[position] if position < len(parts) else ""
            if line and (value or last):
                self._variables[name] = (line if len(names) == 1 else value,)
            else:
                self._variables.pop(name, None)

    def _code(self, language: str, code: str, segment: Segment, ctx: _Context) -> None:
        if language == "shell":
            self._source(as_source(code), ctx)
            return
        findings = scan_code(language, code)
        if findings.download_exec:
            _refuse("download-exec", f"{language} code that downloads and runs code", segment.text)
        if findings.fork_bomb:
            _refuse("fork-bomb", f"fork bomb ({language} code that forks in a loop)", segment.text)
        for command in findings.commands:
            self._source(command, ctx)
        for inner_code in findings.code:
            inner = replace(ctx, depth=ctx.depth + 1)
            self._spend(inner_code, inner)
            self._code(language, inner_code, segment, inner)

    def _reader(self, reader: str, segment: Segment, ctx: _Context) -> None:
        flow = self._foreign_checked(segment.stdin, segment)
        if flow.kind == "data":
            self._code(reader, flow.text, segment, ctx)
        for hint in flow.hints:
            self._ran(reader, hint, segment, ctx)

    def _foreign_checked(self, flow: Flow, segment: Segment) -> Flow:
        if flow.kind == "download":
            _refuse("download-exec", "running code downloaded from the network", segment.text)
        if flow.kind == "encoded":
            _refuse("obfuscated-exec", "running encoded or transformed text as code", segment.text)
        return flow

    def _word_flow(self, word: Word) -> Flow:
        flows = [self._sub_flows.get(sub.id, UNKNOWN_INPUT) for sub in word.subs]
        fed = foreign(flows)
        if fed is not None:
            return fed
        if word.text in (UNKNOWN, SOMETHING) and len(flows) == 1 and flows[0].kind == "data":
            return flows[0]
        return Flow("data", word.text)

    def _track_files(self, segment: Segment, ctx: _Context) -> None:
        args = segment.argv
        if args and "/" in args[0] and segment.program != UNKNOWN:
            self._ran("shell", args[0], segment, replace(ctx, depth=ctx.depth + 1))
        self._files.record(segment)


def _moved(cwd: str, args: tuple[str, ...]) -> str:
    """Where ``cd args`` leads from ``cwd`` (``""`` for the starting folder)."""
    operands = [arg for arg in args if not arg.startswith("-") or arg == "-"]
    target = operands[0] if operands else HOME
    if target == "-" or UNKNOWN in target or SOMETHING in target:
        return ""
    if target.startswith(("/", HOME)) or not cwd:
        return target
    return cwd.rstrip("/") + "/" + target


def _feeds(node: Node, stdin: Flow) -> Flow:
    """What ``>(...)`` in ``node``'s redirections or arguments reads: a downloader's output, or
    what ``tee``/``cat`` pass on; unknown otherwise."""
    name = _stage_name(node).rsplit("/", 1)[-1]
    if name in DOWNLOADERS or stdin.kind in ("download", "encoded"):
        return Flow("download") if name in DOWNLOADERS else stdin
    return stdin if name in ("tee", "cat") else UNKNOWN_INPUT


def _runs_code(segment: Segment) -> bool:
    found = nested_of(segment)
    return bool(found.scripts or found.code or found.files or found.stdin_reader)


def _refuse(rule: str, reason: str, segment: str) -> None:
    raise Refused(Finding(rule, reason, segment[:200]))


def _stage_name(stage: Node) -> str:
    if stage.type != "command":
        return ""
    name = stage.child_by_field_name("name")
    return node_text(name).lstrip("\\") if name is not None else ""


def _is_endless(node: Node) -> bool:
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


def _check_depth(root: Node) -> None:
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


def _chain(node: Node) -> list[Node]:
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
