"""Go: ``go vet`` (lint), ``go build`` (types), ``go test`` (tests).

- ``go vet -json``: findings as JSON objects (``{package: {analyzer: [{posn, message}]}}``)
  on stderr, between ``# package`` lines; code that does not compile is reported as
  ``vet: file:line:col: message`` lines, read as errors. go vet has no fixes: ``fix=True``
  runs it plainly and says so.
- ``go build -o /dev/null``: compile errors, ``file:line:col: message`` lines.
- ``go test -json``: test2json events (``run``, ``output``, ``pass``, ``fail``, ``skip``)
  give each test's outcome, time and output; a package that does not build is read from the
  compiler's lines (Go before 1.24) or its ``build-output`` events.

A ``path`` narrows the run to that directory's packages (``./dir/...``) or a file's package;
the selector is ``-run``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

import toolwire.toolbox.code._failures as failures
from toolwire.capabilities.seams import ProcessResult
from toolwire.results import Err
from toolwire.toolbox.code._diagnostics import CheckRun, Diagnostic, Outcome, RunStatus, TestOutcome
from toolwire.toolbox.code._junit import cap_details
from toolwire.toolbox.code._parsing import as_int, json_lines, relative_file
from toolwire.toolbox.code._running import CheckRequest

__all__ = ["go_lint", "go_tests", "go_typecheck", "parse_go_compile", "parse_go_test", "parse_vet"]

_INSTALL = "install Go (https://go.dev/dl, or apt-get install golang-go)"
_COMPILE_LINE = re.compile(
    r"^(?:vet: )?(?P<file>[^\s:]+\.go):(?P<line>\d+)(?::(?P<column>\d+))?: (?P<message>.+)$"
)
_TEST_PLACE = re.compile(r"^\s+(?P<file>[\w./-]+_test\.go):(?P<line>\d+): ?(?P<message>.*)$")


def parse_go_compile(text: str, root: str, tool: str) -> list[Diagnostic]:
    """Compiler error lines (``./a.go:3:5: message``) in ``text``."""
    found: list[Diagnostic] = []
    for line in text.splitlines():
        match = _COMPILE_LINE.match(line.strip())
        if match is None:
            continue
        found.append(
            Diagnostic(
                file=relative_file(match["file"], root),
                line=int(match["line"]),
                column=as_int(match["column"]),
                code="compile",
                severity="error",
                message=match["message"],
                tool=tool,
            )
        )
    return found


def parse_vet(text: str, root: str) -> list[Diagnostic]:
    """``go vet -json``'s findings, and the compile errors it reports, in ``text``."""
    found = parse_go_compile(text, root, "go vet")
    block: list[str] = []
    for line in text.splitlines():
        if line == "{" or block:
            block.append(line)
        if line == "}" and block:
            try:
                data = json.loads("\n".join(block))
            except ValueError:
                data = None
            block = []
            if isinstance(data, dict):
                found += _vet_findings(data, root)
    return found


def _vet_findings(data: dict[str, Any], root: str) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for analyzers in data.values():
        if not isinstance(analyzers, dict):
            continue
        for analyzer, items in analyzers.items():
            for item in items if isinstance(items, list) else ():
                if not isinstance(item, dict):
                    continue
                file, line, column = _position(str(item.get("posn") or ""))
                found.append(
                    Diagnostic(
                        file=relative_file(file, root),
                        line=line,
                        column=column,
                        code=str(analyzer),
                        severity="error",
                        message=str(item.get("message") or ""),
                        tool="go vet",
                    )
                )
    return found


def _position(posn: str) -> tuple[str, int, int]:
    parts = posn.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return parts[0], int(parts[1]), as_int(parts[2])
    return posn, 0, 0


def _packages(request: CheckRequest) -> list[str]:
    target = request.target
    if not target:
        return ["./..."]
    directory = target if request.target_is_dir else os.path.dirname(target)
    if directory in ("", "."):
        return ["."] if not request.target_is_dir else ["./..."]
    return [f"./{directory}/..."] if request.target_is_dir else [f"./{directory}"]


async def _go(request: CheckRequest, label: str, args: list[str]) -> ProcessResult | Err:
    if await request.which("go") is None:
        return failures.not_installed("go", _INSTALL)
    return await request.run(label, "go", args)  # go.mod is read-only: -mod is never forced


async def go_lint(request: CheckRequest) -> CheckRun | Err:
    """``go vet`` over the target's packages (see the module docstring)."""
    args = ["vet", "-json", *_packages(request)]
    result = await _go(request, "go vet", args)
    if isinstance(result, Err):
        return result
    found = parse_vet(result.stderr + "\n" + result.stdout, request.root)
    if result.exit_code != 0 and not found:
        return failures.crashed("go vet", result)
    notes = ("go vet has no automatic fixes: nothing was changed",) if request.fix else ()
    return CheckRun.of_check("go vet", "go", ("go", *args), result.exit_code, found, notes)


async def go_typecheck(request: CheckRequest) -> CheckRun | Err:
    """``go build`` of the target's packages, the binaries discarded."""
    args = ["build", "-o", os.devnull, *_packages(request)]
    result = await _go(request, "go build", args)
    if isinstance(result, Err):
        return result
    found = parse_go_compile(result.stderr + "\n" + result.stdout, request.root, "go build")
    if result.exit_code != 0 and not found:
        return failures.crashed("go build", result)
    return CheckRun.of_check("go build", "go", ("go", *args), result.exit_code, found)


@dataclass(kw_only=True, slots=True)
class _Test:
    outcome: Outcome | None = None
    elapsed: float | None = None
    output: list[str] = field(default_factory=list)


def parse_go_test(text: str, root: str, module: str = "") -> tuple[list[TestOutcome], str]:
    """The tests of ``go test -json`` events in ``text``, and the build output they carry.

    Args:
        text: The events, one JSON object per line (other lines are skipped).
        root: The module root.
        module: The module path (``go.mod``'s ``module`` line), to place test files.
    """
    tests: dict[tuple[str, str], _Test] = {}
    packages: dict[str, _Test] = {}
    build: list[str] = []
    for event in json_lines(text):
        action, package = event.get("Action"), str(event.get("Package") or "")
        if action == "build-output":
            build.append(str(event.get("Output") or ""))
            continue
        name = event.get("Test")
        if name:
            state = tests.setdefault((package, str(name)), _Test())
        else:
            state = packages.setdefault(package, _Test())
        if action == "output":
            state.output.append(str(event.get("Output") or ""))
        elif action in _ACTIONS:
            state.outcome = _ACTIONS[action]
            elapsed = event.get("Elapsed")
            state.elapsed = float(elapsed) if isinstance(elapsed, int | float) else None
    found = [
        _go_test(package, name, state, _directory(module, package))
        for (package, name), state in tests.items()
    ]
    for package, state in packages.items():
        if state.outcome == "failed" and not any(key[0] == package for key in tests):
            where = _directory(module, package)
            found.append(_go_test(package, package, state, where, "error"))
    return [_blame_subtests(test, found) for test in found], "".join(build)


def _blame_subtests(test: TestOutcome, tests: list[TestOutcome]) -> TestOutcome:
    """A parent test that failed with nothing of its own to say failed because of its
    subtests: say so, and place it where the first failing subtest is."""
    if test.outcome != "failed" or test.message:
        return test
    prefix = test.name + "/"
    child = next((t for t in tests if t.name.startswith(prefix) and t.outcome == "failed"), None)
    if child is None:
        return test
    return TestOutcome(
        name=test.name,
        outcome="failed",
        file=child.file,
        line=child.line,
        duration_s=test.duration_s,
        message=f"its subtest {child.name[len(prefix) :]} failed",
    )


_ACTIONS: dict[str, Outcome] = {"pass": "passed", "fail": "failed", "skip": "skipped"}


def _directory(module: str, package: str) -> str:
    """The package's directory, relative to the module root (``""`` for the root)."""
    if module and package.startswith(module + "/"):
        return package[len(module) + 1 :]
    return ""


def _go_test(
    package: str, name: str, state: _Test, directory: str, outcome: Outcome | None = None
) -> TestOutcome:
    lines = [
        line.rstrip("\n")
        for line in state.output
        if not line.lstrip().startswith(("=== ", "--- PASS", "--- FAIL", "--- SKIP"))
    ]
    place = next((m for m in map(_TEST_PLACE.match, lines) if m is not None), None)
    final: Outcome = outcome or state.outcome or "error"
    message = place["message"] if place else next((s.strip() for s in lines if s.strip()), "")
    return TestOutcome(
        name=name if name == package else f"{package}.{name}",
        outcome=final,
        file=os.path.normpath(os.path.join(directory, place["file"])) if place else None,
        line=int(place["line"]) if place else None,
        duration_s=state.elapsed,
        message=message[:500],
        details=cap_details("\n".join(lines)) if final in ("failed", "error") else "",
    )


_MODULE_LINE = re.compile(r"^module\s+(?P<path>\S+)", re.MULTILINE)


async def _module_path(request: CheckRequest) -> str:
    try:
        text = await request.fs.read(request.project.path("go.mod"))
    except (OSError, ValueError):
        return ""
    match = _MODULE_LINE.search(text)
    return match["path"].strip('"') if match else ""


async def go_tests(request: CheckRequest) -> CheckRun | Err:
    """``go test -json`` over the target's packages (see the module docstring)."""
    args = ["test", "-json", *_packages(request)]
    if request.selector:
        args += ["-run", request.selector]
    result = await _go(request, "go test", args)
    if isinstance(result, Err):
        return result
    tests, build_output = parse_go_test(result.stdout, request.root, await _module_path(request))
    compile_text = "\n".join((build_output, result.stderr, result.stdout))
    diagnostics = parse_go_compile(compile_text, request.root, "go test")
    status: RunStatus
    if result.exit_code == 0:
        status = "passed" if tests else "no_tests"
    elif diagnostics and not any(t.outcome == "failed" for t in tests):
        status = "build_failed"
    elif tests:
        status = "failed"
    else:
        return failures.crashed("go test", result)
    return CheckRun(
        tool="go test",
        ecosystem="go",
        command=("go", *args),
        exit_code=result.exit_code,
        status=status,
        diagnostics=tuple(diagnostics),
        tests=tuple(tests),
    )
