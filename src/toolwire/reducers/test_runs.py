"""Test-run reduction: keep the failures, their tracebacks and the summary; drop the passes.

Recognised runners: pytest, unittest, jest, vitest, ``go test``, ``cargo test``, and package
scripts (``npm``/``pnpm``/``yarn``/``bun`` ``test``) whose output is identified by its shape.
The runner is taken from the output when it is recognisable (``npm test`` may run jest or
vitest) and from the command otherwise. Failing runs are reduced the same way as passing ones:
every failure line survives (see `toolwire.reducers._lines.is_failure_line`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolwire.reducers._lines import TRACEBACK_REGION, Region, render_kept, select_lines
from toolwire.safety.linear_regex import LinearPattern, linear

__all__ = ["detect_test_runner", "reduce_test_output"]

_COMMAND_RUNNERS: tuple[tuple[str, LinearPattern], ...] = (
    ("pytest", linear(r"(?:^|[\s/;&|(])(?:py\.test|pytest)\b")),
    ("unittest", linear(r"\bunittest\b")),
    ("vitest", linear(r"\bvitest\b")),
    ("jest", linear(r"\bjest\b")),
    ("go", linear(r"\bgo\s+test\b")),
    ("cargo", linear(r"\bcargo\s+(?:\+\S+\s+)?(?:test|nextest)\b")),
    ("script", linear(r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:test|t)\b")),
)

_OUTPUT_RUNNERS: tuple[tuple[str, LinearPattern], ...] = (
    ("pytest", linear(r"(?m)^=+ test session starts =+$|^=+ .*\bin [\d.]+s\b.*=+$")),
    ("unittest", linear(r"(?m)^Ran \d+ tests? in [\d.]+s$")),
    ("vitest", linear(r"(?m)^\s*Test Files\s+\d+ ")),
    ("jest", linear(r"(?m)^Test Suites:\s+\d+")),
    ("cargo", linear(r"(?m)^test result: (?:ok|FAILED)\. ")),
    ("go", linear(r"(?m)^(?:--- (?:FAIL|PASS):|(?:ok|FAIL)\s+\S+\s+[\d.]+s)")),
)


def detect_test_runner(command: str, output: str) -> str | None:
    """The test runner that produced ``output``, or ``None`` when this is not a test run.

    Returns:
        One of ``pytest``, ``unittest``, ``jest``, ``vitest``, ``go``, ``cargo`` or
        ``script`` (a package test script whose runner the output does not reveal).
    """
    by_command = next((name for name, rx in _COMMAND_RUNNERS if rx.search(command)), None)
    if by_command is None:
        return None
    by_output = next((name for name, rx in _OUTPUT_RUNNERS if rx.search(output)), None)
    return by_output or by_command


@dataclass(frozen=True, kw_only=True, slots=True)
class _Rules:
    regions: tuple[Region, ...] = ()
    keep: tuple[LinearPattern, ...] = ()
    drop: tuple[LinearPattern, ...] = ()
    context_after: int = 0
    tail: int = 0


_PYTEST_HEADER = linear(r"^=+ .+ =+$")
_RULES: dict[str, _Rules] = {
    "pytest": _Rules(
        regions=(
            # any other header closes the section; FAILURES or ERRORS reopen one at once
            Region(start=linear(r"^=+ (?:FAILURES|ERRORS) =+$"), stop=_PYTEST_HEADER),
            Region(start=linear(r"^=+ short test summary info =+$"), stop=_PYTEST_HEADER),
            TRACEBACK_REGION,
        ),
        keep=(
            linear(
                r"^=+ .*\b(?:passed|failed|errors?|skipped|xfailed|xpassed|no tests ran)\b.*=+$"
            ),
        ),
        drop=(linear(r"\b(?:PASSED|SKIPPED|XFAIL)\b"),),
    ),
    "unittest": _Rules(
        regions=(
            Region(start=linear(r"^(?:FAIL|ERROR): "), stop=linear(r"^-{20,}$")),
            TRACEBACK_REGION,
        ),
        keep=(linear(r"^Ran \d+ tests?"), linear(r"^(?:OK|FAILED)\b")),
    ),
    "jest": _Rules(
        regions=(
            Region(
                start=linear(r"^\s*● "),
                stop=linear(r"^\s*(?:PASS|FAIL)\s|^Test Suites:|^\s*● "),
            ),
        ),
        keep=(linear(r"^(?:Test Suites|Tests|Snapshots|Time):|^Ran all test suites"),),
    ),
    "vitest": _Rules(
        regions=(
            Region(
                start=linear(r"Failed (?:Tests|Suites) \d+"),
                stop=linear(r"^\s*Test Files\s+\d+"),
                keep_stop=True,
            ),
        ),
        keep=(linear(r"^\s*(?:Test Files|Tests|Errors|Start at|Duration)\s"),),
    ),
    "go": _Rules(
        regions=(
            Region(start=linear(r"^\s*--- FAIL:"), stop_at_dedent=True),
            Region(start=linear(r"^panic: "), stop=linear(r"^(?:FAIL|ok)\s")),
        ),
        keep=(linear(r"^(?:ok|FAIL|PASS)\b"), linear(r"^\s+\S+_test\.go:\d+: ")),
    ),
    "cargo": _Rules(
        regions=(
            Region(start=linear(r"^failures:$"), stop=linear(r"^test result: "), keep_stop=True),
            Region(start=linear(r"^error(?:\[\w+\])?: "), stop=linear(r"^\s*$")),
        ),
        keep=(
            linear(r"^test result: "),
            linear(r"^warning(?:\[\w+\])?: "),
            linear(r"^\s*Running "),
        ),
    ),
    "script": _Rules(
        regions=(TRACEBACK_REGION,),
        keep=(
            linear(
                r"(?i)\b\d+\s+(?:passing|failing|passed|failed|pending|skipped|tests?|suites?)\b"
            ),
        ),
        context_after=3,
        tail=3,
    ),
}


def reduce_test_output(runner: str, output: str) -> str | None:
    """Keep the failures, tracebacks and summary of a test run.

    Args:
        runner: A name returned by `detect_test_runner`.
        output: The run's combined stdout and stderr.

    Returns:
        The reduced text, or ``None`` when nothing worth keeping was recognised.
    """
    rules = _RULES.get(runner)
    if rules is None:
        return None
    lines = output.split("\n")
    marks = select_lines(
        lines,
        regions=rules.regions,
        keep=rules.keep,
        drop=rules.drop,
        context_after=rules.context_after,
    )
    _keep_tail(lines, marks, rules.tail)
    if not any(marks):
        return None
    return render_kept(lines, marks).strip("\n")


def _keep_tail(lines: Sequence[str], marks: list[bool], count: int) -> None:
    """Also keep the last ``count`` non-blank lines (runners print their summary last)."""
    for index in range(len(lines) - 1, -1, -1):
        if count <= 0:
            return
        if lines[index].strip():
            marks[index] = True
            count -= 1
