"""Linters with a JSON report (ruff, eslint): one run, and ``fix=True`` as two runs.

A run writes its report to a report file (`toolwire.toolbox.code._reports`) when the project
is writable, to stdout otherwise; exit codes 0 and 1 are the linter's findings, anything else
a crash. With ``request.fix`` the linter runs once plainly and once fixing, and the run
reports what the fix removed (`toolwire.toolbox.code._parsing.fixed_diagnostics`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence

import toolwire.toolbox.code._failures as failures
from toolwire.capabilities.seams import ProcessResult
from toolwire.results import Err
from toolwire.toolbox.code._diagnostics import CheckRun, Diagnostic
from toolwire.toolbox.code._parsing import fixed_diagnostics
from toolwire.toolbox.code._reports import ReportTooLargeError, report_file
from toolwire.toolbox.code._running import CheckRequest

__all__ = ["LintPass", "ReportLinter", "lint_with_fixes"]

LintPass = tuple[list[Diagnostic], CheckRun]
"""One linter run: its findings, and the run that found them."""


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class ReportLinter:
    """A linter that writes a JSON report of its findings.

    Attributes:
        tool: Its name (also the binary that runs).
        ecosystem: ``python``, ``javascript``...
        report_option: The option that names the report file (``-o``).
        parse: Reads the report: ``parse(text, project root)``; raises ``ValueError`` when it
            is not the linter's report.
        refuse: What ends the call for a run the linter refused (``None``: it did not).
    """

    tool: str
    ecosystem: str
    report_option: str
    parse: Callable[[str, str], list[Diagnostic]]
    refuse: Callable[[ProcessResult], Err | None] = lambda _result: None

    async def run(self, request: CheckRequest, args: Sequence[str]) -> LintPass | Err:
        """Run it with ``args`` (the report option and the target are added) over the target
        (the whole project by default)."""
        argv = list(args)
        async with report_file(request, ".json") as report:
            if report is not None:
                argv += [self.report_option, report.path]
            argv.append(request.target or ".")
            result = await request.run(self.tool, self.tool, argv)
            if isinstance(result, Err):
                return result
            refused = self.refuse(result)
            if refused is not None:
                return refused
            if result.exit_code not in (0, 1):
                return failures.crashed(self.tool, result)
            try:
                raw = await report.read() if report is not None else result.stdout.encode()
                if raw is None:
                    return failures.crashed(self.tool, result, "it wrote no report")
                found = self.parse(raw.decode("utf-8", errors="replace") or "[]", request.root)
            except (ValueError, ReportTooLargeError) as exc:
                return failures.unreadable(self.tool, str(exc))
        run = CheckRun.of_check(
            self.tool, self.ecosystem, (self.tool, *argv), result.exit_code, found
        )
        return found, run


async def lint_with_fixes(
    request: CheckRequest, lint: Callable[[bool], Awaitable[LintPass | Err]]
) -> CheckRun | Err:
    """``lint(False)``; with ``request.fix``, then ``lint(True)``, whose run names what the
    fix removed (``fixed``)."""
    before = await lint(False)
    if isinstance(before, Err) or not request.fix:
        return before if isinstance(before, Err) else before[1]
    after = await lint(True)
    if isinstance(after, Err):
        return after
    return dataclasses.replace(after[1], fixed=fixed_diagnostics(before[0], after[0]))
