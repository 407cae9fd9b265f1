"""Python tests: pytest, read from its JUnit XML report.

pytest runs in the project root with ``--junitxml=<report file>`` (``junit_family=xunit1``,
which records each test's file and line); the report is parsed with the safe XML parser
(`toolwire.toolbox.code._safe_xml`). ``path`` and ``selector`` narrow the run: a selector that
looks like a node id or a path (``::``, ``/`` or ``.py`` in it) is passed as is, anything else
as ``-k <selector>``. Exit codes: 0 passed, 1 failures, 2 interrupted (collection errors, read
from the report), 5 no tests; 3 and 4 (internal or usage error) are crashes. A run that
collection errors stopped before any test ran says so in place of its counts: ``pytest: the
run stopped: 2 collection errors; no test ran (first: tests/test_a.py:3)``.
"""

from __future__ import annotations

import toolwire.toolbox.code._failures as failures
from toolwire.reducers.test_runs import reduce_test_output
from toolwire.results import Err
from toolwire.toolbox.code._diagnostics import CheckRun, RunStatus, TestOutcome
from toolwire.toolbox.code._junit import parse_junit
from toolwire.toolbox.code._reports import ReportTooLargeError, report_file
from toolwire.toolbox.code._running import CheckRequest
from toolwire.toolbox.code._safe_xml import UnsafeXmlError

__all__ = ["pytest_args", "python_tests"]


def pytest_args(target: str | None, selector: str | None) -> list[str]:
    """The positional arguments and ``-k`` that select what pytest runs."""
    if selector and any(mark in selector for mark in ("::", "/", ".py")):
        return [selector]
    args = [target] if target else []
    if selector:
        args += ["-k", selector]
    return args


async def python_tests(request: CheckRequest) -> CheckRun | Err:
    """pytest over the target (default: the project's configured test paths)."""
    if await request.which("pytest") is None:
        return failures.not_installed(
            "pytest", "install it in the project's .venv or beside toolwire: pip install pytest"
        )
    async with report_file(request, ".xml") as report:
        if report is None:
            return failures.no_checker("pytest needs write reach over the project for its report")
        args = [f"--junitxml={report.path}", "-o", "junit_family=xunit1", "-q", "--color=no"]
        args += pytest_args(request.target, request.selector)
        result = await request.run("pytest", "pytest", args, env={"PY_COLORS": "0"})
        if isinstance(result, Err):
            return result
        if result.exit_code not in (0, 1, 2, 5):
            return failures.crashed("pytest", result)
        try:
            data = await report.read()
            tests = parse_junit(data) if data is not None else None
        except (UnsafeXmlError, ReportTooLargeError) as exc:
            return failures.unreadable("pytest", str(exc))
    if tests is None:
        return failures.crashed("pytest", result, "it wrote no report")
    if result.exit_code == 2 and not tests:
        return failures.crashed("pytest", result, "the run was interrupted before any test ran")
    status: RunStatus
    if result.exit_code == 5:
        status = "no_tests"
    elif result.exit_code == 0:
        status = "passed"
    else:
        status = "failed"
    output = ""
    if status == "failed" and not any(t.outcome in ("failed", "error") for t in tests):
        output = reduce_test_output("pytest", result.stdout + result.stderr) or ""
    return CheckRun(
        tool="pytest",
        ecosystem="python",
        command=("pytest", *args),
        exit_code=result.exit_code,
        status=status,
        tests=tuple(tests),
        output=output,
        stopped=_stopped(result.exit_code, tests),
    )


_COLLECTION_FAILURE = "collection failure"


def _stopped(exit_code: int, tests: list[TestOutcome]) -> str:
    """The summary of a run collection errors stopped before any test ran (exit code 2, only
    collection errors in the report); empty otherwise."""
    errors = [t for t in tests if t.outcome == "error" and t.message == _COLLECTION_FAILURE]
    if exit_code != 2 or not errors or len(errors) != len(tests):
        return ""
    first = errors[0]
    where = first.file or first.name
    if first.file is not None:  # its traceback names the line of the module that failed
        prefix = first.file + ":"
        lines = [
            number
            for line in first.details.splitlines()
            if line.startswith(prefix)
            and (number := line[len(prefix) :].partition(":")[0]).isdigit()
        ]
        where += f":{lines[-1]}" if lines else ""
    count = f"{len(errors)} collection error" + ("" if len(errors) == 1 else "s")
    return f"the run stopped: {count}; no test ran (first: {where})"
