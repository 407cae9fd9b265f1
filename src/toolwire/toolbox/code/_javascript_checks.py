"""JavaScript and TypeScript: eslint (lint) and tsc (types).

Both are the project's own, from ``node_modules/.bin`` (or a global install on the search
path), and run with ``node`` from the search path.

- **eslint** ``-f json`` (exit 1 = errors; warnings alone exit 0); ``fix=True`` runs it once
  plainly and once with ``--fix`` and reports the difference. A project without an eslint
  configuration is skipped (``no_checker``), not an error.
- **tsc** ``--noEmit --pretty false -p tsconfig.json``: only with a ``tsconfig.json`` in the
  project root. Its line format is ``file(line,col): error TS2322: message``, indented lines
  continuing the message. tsc checks the whole project; a ``path`` keeps the diagnostics of
  the files under it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import toolwire.toolbox.code._failures as failures
from toolwire.capabilities.seams import ProcessResult
from toolwire.results import Err
from toolwire.toolbox.code._diagnostics import CheckRun, Diagnostic
from toolwire.toolbox.code._parsing import as_int, load_json, relative_file, severity_of
from toolwire.toolbox.code._report_lint import LintPass, ReportLinter, lint_with_fixes
from toolwire.toolbox.code._running import CheckRequest

__all__ = ["javascript_lint", "javascript_typecheck", "parse_eslint", "parse_tsc"]

_NPM_HINT = "add it to the project: npm install --save-dev {}"
_NO_CONFIG = ("couldn't find a configuration file", "couldn't find an eslint.config")


def parse_eslint(text: str, root: str) -> list[Diagnostic]:
    """eslint's ``json`` formatter output (a list of files with their messages).

    Raises:
        ValueError: it is not a JSON list.
    """
    data = load_json(text)
    if not isinstance(data, list):
        raise ValueError("eslint's report is not a JSON list")
    found: list[Diagnostic] = []
    for entry in data:
        if not isinstance(entry, dict):
            continue
        file = relative_file(str(entry.get("filePath") or ""), root)
        for message in entry.get("messages") or ():
            if isinstance(message, dict):
                found.append(_eslint_message(file, message))
    return found


def _eslint_message(file: str, message: dict[str, Any]) -> Diagnostic:
    return Diagnostic(
        file=file,
        line=as_int(message.get("line")),
        column=as_int(message.get("column")),
        end_line=as_int(message.get("endLine")) or None,
        end_column=as_int(message.get("endColumn")) or None,
        code=str(message.get("ruleId") or ("parse-error" if message.get("fatal") else "")),
        severity=severity_of(message.get("severity")),
        message=str(message.get("message") or ""),
        tool="eslint",
        fixable=isinstance(message.get("fix"), dict),
    )


def _no_config(result: ProcessResult) -> Err | None:
    if result.exit_code == 2 and any(m in result.stderr + result.stdout for m in _NO_CONFIG):
        return failures.no_checker("eslint: the project has no eslint configuration")
    return None


_ESLINT = ReportLinter(
    tool="eslint",
    ecosystem="javascript",
    report_option="-o",
    parse=parse_eslint,
    refuse=_no_config,
)


async def _eslint(request: CheckRequest, fix: bool) -> LintPass | Err:
    args = ["-f", "json", "--no-color"]
    if fix:
        args.append("--fix")
    return await _ESLINT.run(request, args)


async def javascript_lint(request: CheckRequest) -> CheckRun | Err:
    """eslint over the target (the whole project by default); with ``request.fix``, its fixes."""
    if await request.which("eslint") is None:
        return failures.not_installed("eslint", _NPM_HINT.format("eslint"))
    return await lint_with_fixes(request, lambda fix: _eslint(request, fix))


_TSC_LINE = re.compile(
    r"^(?:(?P<file>.+?)\((?P<line>\d+),(?P<column>\d+)\): )?"
    r"(?P<severity>error|warning|message) (?P<code>TS\d+): (?P<message>.*)$"
)


def parse_tsc(text: str, root: str) -> list[Diagnostic]:
    """tsc's ``--pretty false`` output; indented lines continue the message before them."""
    found: list[Diagnostic] = []
    for line in text.splitlines():
        match = _TSC_LINE.match(line)
        if match is None:
            if found and line[:1].isspace() and line.strip():
                last = found.pop()
                found.append(dataclasses.replace(last, message=f"{last.message}\n{line.strip()}"))
            continue
        found.append(
            Diagnostic(
                file=relative_file(match["file"] or "", root),
                line=as_int(match["line"]),
                column=as_int(match["column"]),
                code=match["code"],
                severity=severity_of(match["severity"]),
                message=match["message"],
                tool="tsc",
            )
        )
    return found


def _under(file: str, target: str, is_dir: bool) -> bool:
    if not is_dir:
        return file == target
    return target in ("", ".") or file.startswith(target.rstrip("/") + "/")


async def javascript_typecheck(request: CheckRequest) -> CheckRun | Err:
    """tsc over the project (see the module docstring)."""
    if not request.project.has("tsconfig.json"):
        return failures.no_checker("tsc: the project root has no tsconfig.json")
    if await request.which("tsc") is None:
        return failures.not_installed("tsc", _NPM_HINT.format("typescript"))
    args = ["--noEmit", "--pretty", "false", "-p", "tsconfig.json"]
    result = await request.run("tsc", "tsc", args)
    if isinstance(result, Err):
        return result
    found = parse_tsc(result.stdout + "\n" + result.stderr, request.root)
    if result.exit_code != 0 and not found:
        return failures.crashed("tsc", result)
    notes: tuple[str, ...] = ()
    if request.target:
        kept = [d for d in found if _under(d.file, request.target, request.target_is_dir)]
        notes = (f"tsc checked the whole project; {len(kept)} of {len(found)} are in the path",)
        found = kept
    return CheckRun.of_check("tsc", "javascript", ("tsc", *args), result.exit_code, found, notes)
