"""The code a command runs besides itself, judged as code: the walker's second half.

`CodeRuns` is the part of `toolwire.safety.bash._walk.Walker` that judges what `nested_of`
finds a command running besides itself: shell scripts parsed again, inline interpreter code
read by `code_scan`, piped or here-doc'd text judged as the code it becomes, script files
written earlier in the line judged by what was written, and commands carried by
configuration (`toolwire.safety.bash._config_commands`: ``git -c core.pager=...``,
``GIT_SSH_COMMAND=...``). A download or encoded text reaching a shell or interpreter is refused
whatever its shape. `WalkContext` is what the walk carries from a node to its children.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace

from toolwire.safety.bash._code_scan import scan_code
from toolwire.safety.bash._commands import unwrap
from toolwire.safety.bash._config_commands import config_commands
from toolwire.safety.bash._flows import as_source, foreign
from toolwire.safety.bash._line_files import LineFiles
from toolwire.safety.bash._model import NO_INPUT, UNKNOWN_INPUT, Finding, Flow, Redirect, Segment
from toolwire.safety.bash._nested import deletes_operands, nested_of
from toolwire.safety.bash._words import SOMETHING, UNKNOWN, TooComplexError, Word, display

__all__ = ["MAX_NESTING", "CodeRuns", "Refused", "WalkContext", "refuse"]

MAX_NESTING = 8
"""Code inside code (``bash -c "sh -c '...'"``) deeper than this is refused, not skipped."""


class Refused(Exception):
    """Raised inside the walk when a rule is broken; carries the `Finding`."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.reason)
        self.finding = finding


@dataclass(frozen=True, slots=True)
class WalkContext:
    """What the walk carries from a node to its children."""

    stdin: Flow = NO_INPUT
    feeds: Flow = UNKNOWN_INPUT  # what an output process substitution, >(sh), reads
    redirects: tuple[Redirect, ...] = ()
    depth: int = 0
    functions: tuple[str, ...] = ()
    background: bool = False
    endless: bool = False

    def reading(self, stdin: Flow) -> WalkContext:
        """This context with ``stdin`` as input (``dataclasses.replace`` is slow here)."""
        return WalkContext(
            stdin, self.feeds, self.redirects, self.depth, self.functions, self.background,
            self.endless,
        )  # fmt: skip

    def for_arguments(self, feeds: Flow) -> WalkContext:
        """The context of a command's words: not in the background, ``>(...)`` reading
        ``feeds``."""
        return WalkContext(
            self.stdin, feeds, self.redirects, self.depth, self.functions, False, self.endless
        )


class CodeRuns(ABC):
    """Judging the code a command runs besides itself (see the module doc)."""

    _files: LineFiles
    _sub_flows: dict[int, Flow]
    _cwd: str

    @abstractmethod
    def _spend(self, source: str, ctx: WalkContext) -> None:
        """Count ``source`` against the check's budget; refuse code nested too deeply."""

    @abstractmethod
    def _source(self, source: str, ctx: WalkContext) -> None:
        """Parse ``source`` as shell and judge every command it runs."""

    @abstractmethod
    def _segment(self, segment: Segment, ctx: WalkContext) -> None:
        """Judge one resolved command, and what it runs besides itself."""

    def _nested(self, segment: Segment, ctx: WalkContext) -> None:
        found = nested_of(segment)
        inner = WalkContext(stdin=segment.stdin, depth=ctx.depth + 1)
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
            if found.from_input and deletes_operands(built.argv):
                refuse(
                    "delete-from-input",
                    f"{display(argv[0].text)} destroying paths read from input, which cannot "
                    "be known before it runs",
                    segment.text,
                )
        configured = config_commands(segment)
        if configured.hidden:
            refuse(
                "git-config-command",
                f"a command for git's {configured.hidden} taken from a variable the line "
                "does not show",
                segment.text,
            )
        for script in configured.scripts:
            self._source(as_source(script), inner)

    def _configured(self, name: str, value: str, ctx: WalkContext) -> None:
        """``NAME=value`` for a variable programs run as a command: judged as that command."""
        inner = WalkContext(depth=ctx.depth + 1)
        self._spend(value, inner)
        self._source(as_source(value.lstrip("|")), inner)

    def _run_file(self, language: str, word: Word, segment: Segment, ctx: WalkContext) -> None:
        """A script file it runs: a process substitution's output (``bash <(curl ...)``,
        ``source <(echo ...)``) is judged as code; a file written or downloaded earlier in the
        line is judged by what was written, or refused."""
        flows = [self._sub_flows.get(sub.id, NO_INPUT) for sub in word.subs]
        self._foreign_checked(foreign(flows) or NO_INPUT, segment)
        if word.text == SOMETHING and len(flows) == 1 and flows[0].kind == "data":
            self._code(language, flows[0].text, segment, ctx)
        self._ran(language, word.text, segment, ctx)

    def _ran(self, language: str, path: str, segment: Segment, ctx: WalkContext) -> None:
        written = self._files.ran(path, segment.text)
        if written is not None:
            self._spend(written, ctx)
            self._code(language, written, segment, ctx)

    def _code(self, language: str, code: str, segment: Segment, ctx: WalkContext) -> None:
        if language == "shell":
            self._source(as_source(code), ctx)
            return
        findings = scan_code(language, code)
        if findings.download_exec:
            refuse("download-exec", f"{language} code that downloads and runs code", segment.text)
        if findings.fork_bomb:
            refuse("fork-bomb", f"fork bomb ({language} code that forks in a loop)", segment.text)
        for command in findings.commands:
            self._source(command, ctx)
        for inner_code in findings.code:
            inner = replace(ctx, depth=ctx.depth + 1)
            self._spend(inner_code, inner)
            self._code(language, inner_code, segment, inner)

    def _reader(self, reader: str, segment: Segment, ctx: WalkContext) -> None:
        flow = self._foreign_checked(segment.stdin, segment)
        if flow.kind == "data":
            self._code(reader, flow.text, segment, ctx)
        for hint in flow.hints:
            self._ran(reader, hint, segment, ctx)

    def _foreign_checked(self, flow: Flow, segment: Segment) -> Flow:
        if flow.kind == "download":
            refuse("download-exec", "running code downloaded from the network", segment.text)
        if flow.kind == "encoded":
            refuse("obfuscated-exec", "running encoded or transformed text as code", segment.text)
        return flow

    def _word_flow(self, word: Word) -> Flow:
        flows = [self._sub_flows.get(sub.id, UNKNOWN_INPUT) for sub in word.subs]
        fed = foreign(flows)
        if fed is not None:
            return fed
        if word.text in (UNKNOWN, SOMETHING) and len(flows) == 1 and flows[0].kind == "data":
            return flows[0]
        return Flow("data", word.text)

    def _track_files(self, segment: Segment, ctx: WalkContext) -> None:
        args = segment.argv
        if args and "/" in args[0] and segment.program != UNKNOWN:
            self._ran("shell", args[0], segment, replace(ctx, depth=ctx.depth + 1))
        self._files.record(segment)


def _runs_code(segment: Segment) -> bool:
    found = nested_of(segment)
    return bool(found.scripts or found.code or found.files or found.stdin_reader)


def refuse(rule: str, reason: str, segment: str) -> None:
    """Stop the walk: ``segment`` breaks ``rule``."""
    raise Refused(Finding(rule, reason, segment[:200]))
