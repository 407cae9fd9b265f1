"""JavaScript and TypeScript tests: vitest or jest, whichever the package's test script uses.

The runner is the one ``package.json``'s ``scripts.test`` names (``vitest`` or ``jest``); with
no test script, whichever of the two is installed. It runs directly (not through ``npm test``,
whose script could start a watcher) with a JSON report written to a report file:

- vitest: ``vitest run --reporter=json --outputFile=<report>`` (``-t`` for a selector);
- jest: ``jest --ci --json --outputFile=<report>`` (``-t`` for a selector).

Both reports share one shape (``testResults[].assertionResults[]``); a test file that failed
to load becomes one ``error`` test. ``CI=true`` keeps both out of watch and interactive modes.

A test script that names neither (``node --test``, ``mocha``) runs as ``npm test --silent``;
its output is kept through the test-run reducer (`toolwire.reducers.test_runs`), with no
per-test detail, and its exit code decides ``passed`` or ``failed``.
"""

from __future__ import annotations

import re
from typing import Any

import toolwire.toolbox.code._failures as failures
from toolwire.reducers.test_runs import detect_test_runner, reduce_test_output
from toolwire.results import Err
from toolwire.toolbox.code._diagnostics import CheckRun, Outcome, RunStatus, TestOutcome
from toolwire.toolbox.code._junit import cap_details
from toolwire.toolbox.code._parsing import load_json, relative_file, strip_ansi
from toolwire.toolbox.code._reports import ReportTooLargeError, report_file
from toolwire.toolbox.code._running import CheckRequest

__all__ = ["javascript_tests", "parse_jest_report"]

_OUTCOMES: dict[str, Outcome] = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "skipped",
    "pending": "skipped",
    "todo": "skipped",
    "disabled": "skipped",
}
_NPM_DEFAULT_SCRIPT = "no test specified"
_HINT = "npm install --save-dev "
_ENV = {"CI": "true", "FORCE_COLOR": "0"}


def parse_jest_report(text: str | bytes, root: str) -> list[TestOutcome]:
    """The tests of a jest ``--json`` or vitest ``--reporter=json`` report.

    Raises:
        ValueError: it is not such a report.
    """
    data = load_json(text)
    if not isinstance(data, dict) or not isinstance(data.get("testResults"), list):
        raise ValueError("the report has no testResults list")
    tests: list[TestOutcome] = []
    for suite in data["testResults"]:
        if isinstance(suite, dict):
            tests += _suite(suite, root)
    return tests


def _suite(suite: dict[str, Any], root: str) -> list[TestOutcome]:
    path = str(suite.get("name") or "")
    file = relative_file(path, root)
    cases = [c for c in suite.get("assertionResults") or () if isinstance(c, dict)]
    tests = [_case(case, file, path) for case in cases]
    message = strip_ansi(str(suite.get("message") or suite.get("failureMessage") or "")).strip()
    if suite.get("status") == "failed" and not any(t.outcome == "failed" for t in tests):
        summary = next((line.strip() for line in message.splitlines() if line.strip()), "")
        tests.append(
            TestOutcome(
                name=file,
                outcome="error",
                file=file,
                message=summary[:500] or "the test file failed to run",
                details=cap_details(message),
            )
        )
    return tests


def _failure_line(details: str, path: str) -> int | None:
    """The line of the test file in a failure's stack trace (its first frame there)."""
    if not path:
        return None
    match = re.search(re.escape(path) + r":(\d+):\d+", details)
    return int(match[1]) if match else None


def _case(case: dict[str, Any], file: str, path: str) -> TestOutcome:
    outcome = _OUTCOMES.get(str(case.get("status")), "error")
    ancestors = [str(a) for a in case.get("ancestorTitles") or () if a]
    name = " > ".join([*ancestors, str(case.get("title") or "?")])
    messages = [strip_ansi(str(m)) for m in case.get("failureMessages") or ()]
    details = "\n".join(_without_library_frames(m) for m in messages)
    duration = case.get("duration")
    location = case.get("location") if isinstance(case.get("location"), dict) else None
    return TestOutcome(
        name=name,
        outcome=outcome,
        file=file,
        line=location.get("line") if location else _failure_line(details, path),
        duration_s=round(duration / 1000, 4) if isinstance(duration, int | float) else None,
        message=next((line.strip() for line in details.splitlines() if line.strip()), "")[:500],
        details=cap_details(details) if outcome in ("failed", "error") else "",
    )


def _without_library_frames(message: str) -> str:
    lines = message.splitlines()
    return "\n".join(line for line in lines if not ("node_modules/" in line and "at " in line))


async def _test_script(request: CheckRequest) -> str:
    if not request.project.has("package.json"):
        return ""
    try:
        data = load_json(await request.fs.read(request.project.path("package.json")))
    except (OSError, ValueError):
        return ""
    scripts = data.get("scripts") if isinstance(data, dict) else None
    script = scripts.get("test") if isinstance(scripts, dict) else None
    return script if isinstance(script, str) else ""


def _named_runner(script: str) -> str | None:
    """The runner a test script names (``vitest`` first: ``vitest`` contains no ``jest``)."""
    if "vitest" in script:
        return "vitest"
    return "jest" if "jest" in script else None


async def javascript_tests(request: CheckRequest) -> CheckRun | Err:
    """vitest, jest or the package's test script (see the module docstring)."""
    script = await _test_script(request)
    named = _named_runner(script)
    if named is not None:
        if await request.which(named) is None:
            return failures.not_installed(named, f"the test script runs it: {_HINT}{named}")
        return await _run_json_runner(request, named)
    if script and _NPM_DEFAULT_SCRIPT not in script:
        if await request.which("npm") is None:
            return failures.not_installed("npm", "the package's test script needs it")
        return await _npm_test(request)
    for runner in ("vitest", "jest"):
        if await request.which(runner) is not None:
            return await _run_json_runner(request, runner)
    return failures.not_installed("vitest or jest", f"add one: {_HINT}vitest")


def _runner_args(request: CheckRequest, runner: str, report: str) -> list[str]:
    if runner == "vitest":
        args = ["run", "--reporter=json", f"--outputFile={report}"]
    else:
        args = ["--ci", "--json", f"--outputFile={report}"]
    if request.target:
        if runner == "jest" and not request.target_is_dir:
            args += ["--runTestsByPath", request.target]
        else:
            args.append(request.target)
    if request.selector:
        args += ["-t", request.selector]
    return args


async def _run_json_runner(request: CheckRequest, runner: str) -> CheckRun | Err:
    async with report_file(request, ".json") as report:
        if report is None:
            return failures.no_checker(f"{runner} needs write reach over the project")
        args = _runner_args(request, runner, report.path)
        result = await request.run(runner, runner, args, env=_ENV)
        if isinstance(result, Err):
            return result
        try:
            data = await report.read()
            tests = parse_jest_report(data, request.root) if data else None
        except (ValueError, ReportTooLargeError) as exc:
            return failures.unreadable(runner, str(exc))
    if tests is None:
        if result.exit_code != 0 and "No test" in result.stdout + result.stderr:
            tests = []
        else:
            return failures.crashed(runner, result)
    status: RunStatus = "no_tests" if not tests else "passed"
    if any(t.outcome in ("failed", "error") for t in tests) or (tests and result.exit_code):
        status = "failed"
    return CheckRun(
        tool=runner,
        ecosystem="javascript",
        command=(runner, *args),
        exit_code=result.exit_code,
        status=status,
        tests=tuple(tests),
    )


async def _npm_test(request: CheckRequest) -> CheckRun | Err:
    args = ["test", "--silent"]
    result = await request.run("npm test", "npm", args, env=_ENV)
    if isinstance(result, Err):
        return result
    output = strip_ansi(result.stdout + "\n" + result.stderr)
    runner = detect_test_runner("npm test", output) or "script"
    reduced = reduce_test_output(runner, output) or output[-3000:]
    return CheckRun(
        tool="npm test",
        ecosystem="javascript",
        command=("npm", *args),
        exit_code=result.exit_code,
        status="passed" if result.exit_code == 0 else "failed",
        notes=("the test script's runner is neither vitest nor jest: no per-test results",),
        output=reduced.strip(),
    )
