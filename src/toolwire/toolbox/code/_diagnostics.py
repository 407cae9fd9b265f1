"""The values the code tools produce: `Diagnostic`, `TestOutcome` and `CheckRun`.

Every checker's output, whatever its format, is read into these. A `CheckRun` is one run of
one checker (``ruff``, ``tsc``, ``cargo test``...); ``as_dict`` gives the JSON-able shape that
goes into ``Ok.structured``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

__all__ = [
    "SEVERITIES",
    "CheckRun",
    "Diagnostic",
    "Outcome",
    "RunStatus",
    "Severity",
    "TestOutcome",
    "count_outcomes",
    "count_severities",
]

Severity: TypeAlias = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
Outcome: TypeAlias = Literal["passed", "failed", "error", "skipped"]
RunStatus: TypeAlias = Literal["clean", "issues", "passed", "failed", "build_failed", "no_tests"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Diagnostic:
    """One finding of a linter or type checker.

    Attributes:
        file: The file, relative to the project root when it lies inside it.
        line: 1-based line (0 when the checker gave none).
        column: 1-based column (0 when the checker gave none).
        code: The rule or error code (``F401``, ``TS2322``, ``clippy::needless_return``), or
            ``""``.
        severity: ``error``, ``warning`` or ``info``.
        message: The checker's message (one line or several).
        tool: The checker that reported it.
        end_line: Where the flagged span ends, when known.
        end_column: Likewise.
        fixable: Whether ``lint(fix=True)`` can fix it automatically.
    """

    file: str
    line: int
    column: int
    code: str
    severity: Severity
    message: str
    tool: str
    end_line: int | None = None
    end_column: int | None = None
    fixable: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The JSON-able shape (``end_line`` / ``end_column`` only when known)."""
        data: dict[str, Any] = {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "tool": self.tool,
            "fixable": self.fixable,
        }
        if self.end_line is not None:
            data["end_line"] = self.end_line
        if self.end_column is not None:
            data["end_column"] = self.end_column
        return data

    @property
    def identity(self) -> tuple[str, str, str]:
        """``(file, code, message)``: what stays the same when a fix moves lines around."""
        return (self.file, self.code, self.message)


@dataclass(frozen=True, kw_only=True, slots=True)
class TestOutcome:
    """One test of a test run.

    Attributes:
        name: The runner's name for it (a pytest node id, ``suite > test``, ``mod::test``).
        outcome: ``passed``, ``failed``, ``error`` (it could not run: a collection or setup
            error) or ``skipped``.
        file: The file it lives in, when known.
        line: Its line (or the failure's line), when known.
        duration_s: How long it ran, when the runner says.
        message: The failure's one-line summary (``""`` for a pass).
        details: The failure's longer text (traceback, assertion diff), capped.
    """

    __test__: ClassVar[bool] = False  # not a pytest test class

    name: str
    outcome: Outcome
    file: str | None = None
    line: int | None = None
    duration_s: float | None = None
    message: str = ""
    details: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON-able shape."""
        return {
            "name": self.name,
            "outcome": self.outcome,
            "file": self.file,
            "line": self.line,
            "duration_s": self.duration_s,
            "message": self.message,
            "details": self.details,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class CheckRun:
    """One run of one checker over the project.

    Attributes:
        tool: The checker (``ruff``, ``mypy``, ``eslint``, ``cargo clippy``, ``go test``...).
        ecosystem: ``python``, ``javascript``, ``rust`` or ``go``.
        command: The argument vector that ran.
        exit_code: Its exit code.
        status: ``clean`` / ``issues`` (checks), ``passed`` / ``failed`` / ``no_tests`` (tests),
            ``build_failed`` (the code did not compile, so the tests did not run).
        diagnostics: Every finding (compile errors of a test run included).
        tests: Every test the runner reported.
        notes: Short remarks for the model (bytes the runner dropped, a fallback taken).
        output: The checker's own output, reduced, when its report said too little (a crash,
            a test script whose runner is unknown).
        fixed: The diagnostics a fix removed (``lint(fix=True)``).
        stopped: Why the runner stopped before running the tests (``the run stopped: 1
            collection error; no test ran (first: tests/test_a.py:1)``), said instead of
            the counts; empty when it ran them.
    """

    tool: str
    ecosystem: str
    command: tuple[str, ...]
    exit_code: int
    status: RunStatus
    diagnostics: tuple[Diagnostic, ...] = ()
    tests: tuple[TestOutcome, ...] = ()
    notes: tuple[str, ...] = ()
    output: str = ""
    fixed: tuple[Diagnostic, ...] = field(default=())
    stopped: str = ""

    @classmethod
    def of_check(
        cls,
        tool: str,
        ecosystem: str,
        command: tuple[str, ...],
        exit_code: int,
        found: Iterable[Diagnostic],
        notes: tuple[str, ...] = (),
    ) -> CheckRun:
        """A checker's run (a linter, a type checker): ``issues`` when it ``found`` anything,
        ``clean`` otherwise."""
        diagnostics = tuple(found)
        return cls(
            tool=tool,
            ecosystem=ecosystem,
            command=command,
            exit_code=exit_code,
            status="issues" if diagnostics else "clean",
            diagnostics=diagnostics,
            notes=notes,
        )

    def as_dict(self) -> dict[str, Any]:
        """The run's summary for ``structured["runs"]`` (its diagnostics, tests and fixes are
        listed once, at the top of ``structured``, each naming its ``tool``)."""
        data: dict[str, Any] = {
            "tool": self.tool,
            "ecosystem": self.ecosystem,
            "command": list(self.command),
            "exit_code": self.exit_code,
            "status": self.status,
            "counts": count_severities(self.diagnostics),
        }
        if self.tests or self.status in ("passed", "failed", "no_tests"):
            data["test_counts"] = count_outcomes(self.tests)
        if self.fixed:
            data["fixed"] = len(self.fixed)
        if self.notes:
            data["notes"] = list(self.notes)
        if self.output:
            data["output"] = self.output
        if self.stopped:
            data["stopped"] = self.stopped
        return data


def count_severities(diagnostics: Iterable[Diagnostic]) -> dict[str, int]:
    """``{"error": n, "warning": n, "info": n}``."""
    counts: dict[str, int] = dict.fromkeys(SEVERITIES, 0)
    for diagnostic in diagnostics:
        counts[diagnostic.severity] += 1
    return counts


def count_outcomes(tests: Iterable[TestOutcome]) -> dict[str, int]:
    """``{"passed": n, "failed": n, "error": n, "skipped": n}``."""
    counts: dict[str, int] = dict.fromkeys(("passed", "failed", "error", "skipped"), 0)
    for test in tests:
        counts[test.outcome] += 1
    return counts
