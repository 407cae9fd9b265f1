"""Python: ruff (lint), mypy or pyright (types).

- **ruff** ``check --output-format json`` (exit 1 = findings); ``fix=True`` runs it once to
  see what is there and once more with ``--fix``, and reports the difference. The report goes
  to a report file when the project is writable (``-o``), to stdout otherwise, and
  ``--no-cache`` keeps ruff from writing into the project.
- **pyright** ``--outputjson`` runs when the project configures it (``pyrightconfig.json`` or
  ``[tool.pyright]``) and it is installed; else **mypy** ``-O json`` (mypy 1.11+; an older mypy
  gets its line format, ``file:line:col: error: message  [code]``), else pyright.

The tests (pytest) are in `toolwire.toolbox.code._pytest_checks`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import toolwire.toolbox.code._failures as failures
from toolwire.capabilities.seams import ProcessResult
from toolwire.results import Err
from toolwire.toolbox.code._diagnostics import CheckRun, Diagnostic
from toolwire.toolbox.code._parsing import (
    as_int,
    json_lines,
    load_json,
    relative_file,
    severity_of,
)
from toolwire.toolbox.code._report_lint import LintPass, ReportLinter, lint_with_fixes
from toolwire.toolbox.code._running import CheckRequest

__all__ = [
    "parse_mypy_json",
    "parse_mypy_lines",
    "parse_pyright",
    "parse_ruff",
    "python_lint",
    "python_typecheck",
]

_INSTALL = "install it in the project's .venv or beside toolwire: pip install {}"


def parse_ruff(text: str, root: str) -> list[Diagnostic]:
    """ruff's ``json`` output (a list of findings).

    Raises:
        ValueError: it is not a JSON list.
    """
    data = load_json(text)
    if not isinstance(data, list):
        raise ValueError("ruff's report is not a JSON list")
    return [_ruff_item(item, root) for item in data if isinstance(item, dict)]


def _ruff_item(item: dict[str, Any], root: str) -> Diagnostic:
    location = item.get("location") or {}
    end = item.get("end_location") or {}
    fix = item.get("fix")
    return Diagnostic(
        file=relative_file(str(item.get("filename") or ""), root),
        line=as_int(location.get("row")),
        column=as_int(location.get("column")),
        end_line=as_int(end.get("row")) or None,
        end_column=as_int(end.get("column")) or None,
        code=str(item.get("code") or ""),
        severity=severity_of(item.get("severity")),
        message=str(item.get("message") or ""),
        tool="ruff",
        fixable=isinstance(fix, dict) and fix.get("applicability", "safe") == "safe",
    )


_RUFF = ReportLinter(
    tool="ruff", ecosystem="python", report_option="--output-file", parse=parse_ruff
)


async def _ruff(request: CheckRequest, fix: bool) -> LintPass | Err:
    args = ["check", "--output-format", "json", "--force-exclude", "--no-cache", "--no-fix"]
    if fix:
        args[-1] = "--fix"
    return await _RUFF.run(request, args)


async def python_lint(request: CheckRequest) -> CheckRun | Err:
    """ruff over the target (the whole project by default); with ``request.fix``, its fixes."""
    if await request.which("ruff") is None:
        return failures.not_installed("ruff", _INSTALL.format("ruff"))
    return await lint_with_fixes(request, lambda fix: _ruff(request, fix))


def parse_mypy_json(text: str, root: str) -> list[Diagnostic]:
    """mypy's ``-O json`` output: one object per line; notes join the error before them."""
    found: list[Diagnostic] = []
    for item in json_lines(text):
        file = relative_file(str(item.get("file") or ""), root)
        line = max(as_int(item.get("line")), 0)  # -1: a finding about the whole file
        severity = severity_of(item.get("severity"))
        message = str(item.get("message") or "")
        if item.get("hint"):
            message += f"\n{item['hint']}"
        if severity == "info" and found and (found[-1].file, found[-1].line) == (file, line):
            last = found.pop()
            found.append(dataclasses.replace(last, message=f"{last.message}\n{message}"))
            continue
        column = as_int(item.get("column"), -1) + 1  # mypy's JSON columns are 0-based
        found.append(
            Diagnostic(
                file=file,
                line=line,
                column=column,
                end_line=as_int(item.get("end_line")) or None,
                end_column=as_int(item.get("end_column")) or None,
                code=str(item.get("code") or ""),
                severity=severity,
                message=message,
                tool="mypy",
            )
        )
    return found


_MYPY_LINE = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<column>\d+):)?\s*(?P<severity>error|warning|note):"
    r" (?P<message>.*?)(?:  \[(?P<code>[a-z0-9-]+)\])?$"
)


def parse_mypy_lines(text: str, root: str) -> list[Diagnostic]:
    """mypy's line format (``--show-column-numbers --show-error-codes``)."""
    found: list[Diagnostic] = []
    for line in text.splitlines():
        match = _MYPY_LINE.match(line.rstrip())
        if match is None:
            continue
        file = relative_file(match["file"], root)
        number = int(match["line"])
        severity = severity_of(match["severity"])
        if severity == "info" and found and (found[-1].file, found[-1].line) == (file, number):
            last = found.pop()
            found.append(dataclasses.replace(last, message=f"{last.message}\n{match['message']}"))
            continue
        found.append(
            Diagnostic(
                file=file,
                line=number,
                column=as_int(match["column"]),
                code=match["code"] or "",
                severity=severity,
                message=match["message"],
                tool="mypy",
            )
        )
    return found


def parse_pyright(text: str, root: str) -> list[Diagnostic]:
    """pyright's ``--outputjson`` report.

    Raises:
        ValueError: it is not pyright's JSON report.
    """
    data = load_json(text)
    if not isinstance(data, dict) or not isinstance(data.get("generalDiagnostics"), list):
        raise ValueError("pyright's report has no generalDiagnostics list")
    found: list[Diagnostic] = []
    for item in data["generalDiagnostics"]:
        if not isinstance(item, dict):
            continue
        span = item.get("range") or {}
        start, end = span.get("start") or {}, span.get("end") or {}
        found.append(
            Diagnostic(
                file=relative_file(str(item.get("file") or ""), root),
                line=as_int(start.get("line"), -1) + 1,
                column=as_int(start.get("character"), -1) + 1,
                end_line=as_int(end.get("line"), -1) + 1 or None,
                end_column=as_int(end.get("character"), -1) + 1 or None,
                code=str(item.get("rule") or ""),
                severity=severity_of(item.get("severity")),
                message=str(item.get("message") or ""),
                tool="pyright",
            )
        )
    return found


async def _prefers_pyright(request: CheckRequest) -> bool:
    if request.project.has("pyrightconfig.json"):
        return True
    if not request.project.has("pyproject.toml"):
        return False
    try:
        text = await request.fs.read(request.project.path("pyproject.toml"))
    except (OSError, ValueError):
        return False
    return "[tool.pyright]" in text


async def python_typecheck(request: CheckRequest) -> CheckRun | Err:
    """pyright when the project asks for it, else mypy, else pyright (see the docstring)."""
    order = ["pyright", "mypy"] if await _prefers_pyright(request) else ["mypy", "pyright"]
    for checker in order:
        if await request.which(checker) is not None:
            return await (_pyright(request) if checker == "pyright" else _mypy(request))
    return failures.not_installed("mypy (or pyright)", _INSTALL.format("mypy"))


async def _mypy(request: CheckRequest) -> CheckRun | Err:
    base = ["--no-color-output", "--no-error-summary", "--show-column-numbers"]
    base += ["--show-error-codes", "--no-pretty"]
    if not request.writable:
        base.append("--cache-dir=/dev/null")
    base.append(request.target or ".")
    args = ["-O", "json", *base]
    result = await request.run("mypy", "mypy", args)
    if isinstance(result, Err):
        return result
    notes: tuple[str, ...] = ()
    parse = parse_mypy_json
    if result.exit_code == 2 and _no_json_option(result):
        args, parse = base, parse_mypy_lines
        result = await request.run("mypy", "mypy", args)
        if isinstance(result, Err):
            return result
        notes = ("this mypy has no JSON output (1.11+ has): its line format was read",)
    found = parse(result.stdout, request.root)
    if result.exit_code == 2 and found:
        notes += ("mypy stopped at a blocking error: fix it to see the rest",)
    elif result.exit_code not in (0, 1) or (result.exit_code == 1 and not found):
        return failures.crashed("mypy", result)
    return CheckRun.of_check(
        "mypy", "python", ("mypy", *args), result.exit_code, found, notes + _dropped(result)
    )


def _no_json_option(result: ProcessResult) -> bool:
    text = result.stderr + result.stdout
    return "unrecognized arguments" in text or "invalid choice" in text


def _dropped(result: ProcessResult) -> tuple[str, ...]:
    if not result.dropped_stdout_bytes:
        return ()
    return (
        f"the checker printed more than the process runner keeps: {result.dropped_stdout_bytes}"
        " bytes from the middle of its output were dropped, with the findings in them",
    )


async def _pyright(request: CheckRequest) -> CheckRun | Err:
    args = ["--outputjson"]
    if request.target:
        args.append(request.target)
    result = await request.run("pyright", "pyright", args)
    if isinstance(result, Err):
        return result
    if result.exit_code not in (0, 1):
        return failures.crashed("pyright", result)
    try:
        found = parse_pyright(result.stdout, request.root)
    except ValueError as exc:
        return failures.unreadable("pyright", str(exc))
    return CheckRun.of_check("pyright", "python", ("pyright", *args), result.exit_code, found)
