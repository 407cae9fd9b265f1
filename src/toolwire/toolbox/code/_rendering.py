"""The compact text the model reads: counts first, then each failure, grouped by file.

One summary line per checker run (and per ecosystem skipped), then, file by file, every
diagnostic (``  12:5 error F401 message``) or failed test (``  FAILED name (0.01 s): message``
and the last lines of its details). When the text would pass its budget the rest is left out
with a line saying how many; ``structured`` always holds every one of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from toolwire.toolbox.code._diagnostics import (
    CheckRun,
    Diagnostic,
    TestOutcome,
    count_outcomes,
    count_severities,
)

__all__ = ["DETAIL_LINES", "render_runs", "summary_line"]

DETAIL_LINES = 8
"""Lines of a failure's details shown (its last ones: where the assertion is)."""
_MESSAGE_LINES = 6


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _severity_counts(diagnostics: Sequence[Diagnostic]) -> str:
    counts = count_severities(diagnostics)
    words = {"error": "error", "warning": "warning", "info": "note"}
    return ", ".join(_plural(n, words[k]) for k, n in counts.items() if n)


def _files(items: Iterable[Diagnostic | TestOutcome]) -> int:
    return len({item.file for item in items if item.file})


def summary_line(run: CheckRun, fix_hint: bool = False) -> str:
    """The run in one line: what ran, and its counts (and, with ``fix_hint``, how many
    ``lint(fix=true)`` would fix)."""
    head = f"{run.tool}:"
    if run.status in ("passed", "failed", "no_tests", "build_failed") or run.tests:
        return f"{head} {_test_summary(run)}"
    found = run.diagnostics
    parts: list[str] = []
    if run.fixed:
        parts.append(f"fixed {len(run.fixed)} in {_plural(_files(run.fixed), 'file')}")
    if not found:
        parts.append("no problems" if not run.fixed else "nothing left")
        return f"{head} {'; '.join(parts)}"
    left = f"{_plural(len(found), 'problem')} ({_severity_counts(found)})"
    left += f" in {_plural(_files(found), 'file')}"
    parts.append(left + (" left" if run.fixed else ""))
    fixable = sum(d.fixable for d in found)
    if fixable and fix_hint and not run.fixed:
        parts.append(f"{fixable} fixable with lint(fix=true)")
    return f"{head} {'; '.join(parts)}"


def _test_summary(run: CheckRun) -> str:
    counts = count_outcomes(run.tests)
    shown = ", ".join(
        f"{counts[k]} {k}" for k in ("failed", "error", "passed", "skipped") if counts[k]
    )
    total = sum(t.duration_s or 0.0 for t in run.tests)
    timing = f", {total:.2f} s" if total >= 0.005 else ""
    if run.stopped:
        return run.stopped
    if run.status == "no_tests":
        return "no tests ran"
    if run.status == "build_failed":
        return f"build failed ({_severity_counts(run.diagnostics) or 'see output'}); no test ran"
    verdict = "FAILED" if run.status == "failed" else "passed"
    return f"{verdict}: {shown or 'no test results'} ({_plural(len(run.tests), 'test')}{timing})"


def _diagnostic_lines(diagnostic: Diagnostic) -> list[str]:
    where = f"{diagnostic.line}:{diagnostic.column}" if diagnostic.line else "-"
    code = f" {diagnostic.code}" if diagnostic.code else ""
    message = diagnostic.message.strip().splitlines() or [""]
    lines = [f"  {where} {diagnostic.severity}{code} {message[0]}"]
    lines += [f"      {extra}" for extra in message[1:_MESSAGE_LINES]]
    return lines


def _test_lines(test: TestOutcome) -> list[str]:
    took = f" ({test.duration_s:g} s)" if test.duration_s else ""
    message = f": {test.message}" if test.message else ""
    lines = [f"  {test.outcome.upper()} {test.name}{took}{message}"]
    detail = [line for line in test.details.splitlines() if line.strip()]
    lines += [f"      {line}" for line in detail[-DETAIL_LINES:]]
    return lines


def _grouped(run: CheckRun) -> list[tuple[str, list[list[str]]]]:
    """Per file, the line blocks of each finding (diagnostics, then failed tests)."""
    groups: dict[str, list[list[str]]] = {}
    ordered = sorted(run.diagnostics, key=lambda d: (d.file, d.line, d.column))
    for diagnostic in ordered:
        groups.setdefault(diagnostic.file or "(no file)", []).append(_diagnostic_lines(diagnostic))
    for test in run.tests:
        if test.outcome in ("failed", "error"):
            groups.setdefault(test.file or "(no file)", []).append(_test_lines(test))
    return sorted(groups.items())


def render_runs(
    runs: Sequence[CheckRun], skipped: Sequence[str], budget: int, *, fix_hint: bool = False
) -> str:
    """Summaries, notes and skipped ecosystems first, then every finding that fits ``budget``
    characters (with a line counting the ones left out). ``fix_hint``: say how many findings
    ``lint(fix=true)`` would fix."""
    head: list[str] = []
    for run in runs:
        head.append(summary_line(run, fix_hint))
        head += [f"  note: {note}" for note in run.notes]
    head += [f"skipped: {why}" for why in skipped]
    out = list(head)
    used = sum(len(line) + 1 for line in out)
    room = max(budget - 120, 0)
    left_out = 0
    for run in runs:
        for file, blocks in _grouped(run):
            header = [f"{file}" if len(runs) == 1 else f"{file} ({run.tool})"]
            for block in blocks:
                cost = sum(len(line) + 1 for line in header + block)
                if left_out or used + cost > room:
                    left_out += 1
                    continue
                out += header + block
                used += cost
                header = []
        if run.output and not left_out:
            text = ["output:", *[f"  {line}" for line in run.output.splitlines()]]
            cost = sum(len(line) + 1 for line in text)
            if used + cost <= room:
                out += text
                used += cost
    if left_out:
        out.append(f"… {left_out} more not shown here (every one is in structured)")
    return "\n".join(out)
