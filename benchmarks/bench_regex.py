"""Worst-case matching time of every pattern that meets untrusted text, per KiB of input.

Every pattern compiled through `toolwire.safety.linear_regex.linear` (the reducers, redaction,
the injection scan, template-token stripping, the command guard, the presenter) is run over
adversarial inputs built from its own matches: a typical match of the pattern is generated
from its syntax tree (first and last alternatives, optional parts taken once or twice), and
every short slice of it is repeated to fill the input, then followed by a character that makes
the match fail. That is the shape of catastrophic backtracking (``git --x --x --x ... log``
against ``git(?:\\s+--?[\\w-]+)*\\s+status``).

For each pattern the slowest of those inputs is timed at 16 KiB and 64 KiB (``finditer`` to the
end, median of ``--repeat`` runs) and reported in µs per KiB; ``growth`` is time(64 KiB) /
time(16 KiB), 4.0 for linear time. ``matches/KiB`` tells scanning from reporting: where an
input is one match per character, the figure is mostly the cost of a match (a few µs each,
from Python), not of the scan. The baseline, measured in the same run, is Python's ``re``
(the engine before) on the same pattern and its own worst input at 1 and 4 KiB, each run cut
off after ``--cutoff`` seconds (``> cutoff`` then means it did not finish).

Run: ``python benchmarks/bench_regex.py`` (``--skip-re`` for the RE2 figures only).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import re
import signal
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from toolwire.safety.linear_regex import LinearPattern, registered_patterns  # noqa: E402

try:
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python < 3.11
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

PACKAGE = ROOT / "src" / "toolwire"
KIB = 1024
MAX_UNIT = 10
MAX_CANDIDATES = 48
FAIL = "\x00"


def load_patterns() -> tuple[LinearPattern, ...]:
    """Import every module that scans untrusted text, so that all their patterns register."""
    paths = [
        *(PACKAGE / "reducers").glob("*.py"),
        *(PACKAGE / "safety").glob("*.py"),
        PACKAGE / "presenting.py",
    ]
    for path in sorted(paths):
        parts = path.relative_to(ROOT / "src").with_suffix("").parts
        importlib.import_module(".".join(parts).removesuffix(".__init__"))
    return registered_patterns()


# --- a typical match, from the pattern's syntax tree ---------------------------------------


def _member(char: str, items: list[tuple[Any, Any]]) -> bool:
    c = sre_constants
    categories = {
        c.CATEGORY_DIGIT: str.isdigit,
        c.CATEGORY_SPACE: str.isspace,
        c.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
    }
    negate = False
    found = False
    for op, av in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            found |= ord(char) == av
        elif op is c.RANGE:
            found |= av[0] <= ord(char) <= av[1]
        elif op is c.CATEGORY:
            name = str(av)
            base = next((test for cat, test in categories.items() if str(cat) in name), None)
            if base is not None:
                found |= base(char) != name.startswith("CATEGORY_NOT_")
    return found != negate


def _one_of(items: list[tuple[Any, Any]]) -> str:
    for op, av in items:
        if op is sre_constants.LITERAL:
            return chr(av)
        if op is sre_constants.RANGE:
            return chr(av[0])
    return next((ch for ch in "a -0x.é/" if _member(ch, items)), "a")


def _sample(tree: Any, branch: int, repeat: int) -> str:
    c = sre_constants
    out: list[str] = []
    for op, av in tree:
        if op is c.LITERAL:
            out.append(chr(av))
        elif op is c.NOT_LITERAL:
            out.append("a" if av != ord("a") else "b")
        elif op is c.ANY:
            out.append("x")
        elif op is c.IN:
            out.append(_one_of(av))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            low, high, sub = av
            count = min(max(low, repeat), high)
            out.append(_sample(sub, branch, repeat) * count)
        elif op is c.BRANCH:
            options = av[1]
            out.append(_sample(options[-1] if branch else options[0], branch, repeat))
        elif op is c.SUBPATTERN:
            out.append(_sample(av[-1], branch, repeat))
        elif op is getattr(c, "ATOMIC_GROUP", None):
            out.append(_sample(av, branch, repeat))
    return "".join(out)


def samples(pattern: LinearPattern) -> set[str]:
    """Typical matches: first or last alternatives, repeated parts once or twice."""
    tree = sre_parse.parse(pattern.source, pattern.flags)
    return {_sample(tree, branch, repeat) for branch in (0, 1) for repeat in (1, 2)}


def adversarial(pattern: LinearPattern) -> list[tuple[str, str]]:
    """``(prefix, unit)`` pairs: a slice of a typical match (the unit) and what comes before it.

    At most `MAX_CANDIDATES`, spread evenly over all the slices.
    """
    seen: set[tuple[str, str]] = set()
    for sample in samples(pattern):
        for start in range(len(sample)):
            for end in range(start + 1, min(len(sample), start + MAX_UNIT) + 1):
                seen.add((sample[:start], sample[start:end]))
    pairs = sorted(seen) or [("", "a")]
    return pairs[:: max(1, len(pairs) // MAX_CANDIDATES)]


def build(prefix: str, unit: str, size: int) -> str:
    """``prefix``, then ``unit`` repeated up to about ``size`` characters, then a failing end."""
    return prefix + unit * max(1, (size - len(prefix)) // len(unit)) + FAIL


# --- timing ------------------------------------------------------------------------------


class Cutoff(Exception):
    """A run took longer than the cut-off."""


@contextlib.contextmanager
def cutoff(seconds: float) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (Python's ``re`` checks for signals as it runs)."""

    def expire(signum: int, frame: Any) -> None:
        raise Cutoff

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_once(engine: Any, text: str, limit: float | None = None) -> float:
    """Seconds ``finditer`` takes to the end of ``text`` (``inf`` past ``limit``)."""
    start = time.perf_counter()
    try:
        with cutoff(limit) if limit else contextlib.nullcontext():
            for _ in engine.finditer(text):
                pass
    except Cutoff:
        return float("inf")
    return time.perf_counter() - start


def worst_input(
    engine: Any, pattern: LinearPattern, size: int, limit: float | None
) -> tuple[str, str]:
    """The ``(prefix, unit)`` whose input of ``size`` characters takes longest."""
    worst, slowest = ("", "a"), -1.0
    for prefix, unit in adversarial(pattern):
        seconds = run_once(engine, build(prefix, unit, size), limit)
        if seconds > slowest:
            worst, slowest = (prefix, unit), seconds
        if seconds == float("inf"):
            break  # it cannot get worse than not finishing
    return worst


def median_seconds(engine: Any, text: str, repeat: int, limit: float | None = None) -> float:
    return statistics.median(run_once(engine, text, limit) for _ in range(repeat))


def per_kib(seconds: float, text: str) -> str:
    if seconds == float("inf"):
        return "did not finish"
    return f"{seconds * 1e6 / (len(text) / KIB):,.1f}"


def label(pattern: LinearPattern) -> str:
    source = pattern.source if len(pattern.source) <= 48 else pattern.source[:45] + "..."
    source = source.replace("|", "\\|").replace("\n", "\\n").replace("\r", "\\r")
    return f"{pattern.owner.removeprefix('toolwire.')} `{source}`"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per input")
    parser.add_argument("--cutoff", type=float, default=2.0, help="seconds before re gives up")
    parser.add_argument("--skip-re", action="store_true", help="time RE2 only")
    options = parser.parse_args()

    patterns = load_patterns()
    print(f"{len(patterns)} patterns; worst adversarial input each; median of {options.repeat}.\n")
    head = "| pattern | matches/KiB | µs/KiB at 16 KiB | µs/KiB at 64 KiB | growth ×4 |"
    rule = "| --- | ---: | ---: | ---: | ---: |"
    if not options.skip_re:
        head += " re µs/KiB at 1 KiB | re µs/KiB at 4 KiB |"
        rule += " ---: | ---: |"
    print(head)
    print(rule)
    worst_after = 0.0
    unfinished = 0
    for pattern in patterns:
        prefix, unit = worst_input(pattern, pattern, 4 * KIB, None)
        small, large = build(prefix, unit, 16 * KIB), build(prefix, unit, 64 * KIB)
        t16 = median_seconds(pattern, small, options.repeat)
        t64 = median_seconds(pattern, large, options.repeat)
        worst_after = max(worst_after, t64 * 1e6 / (len(large) / KIB))
        density = sum(1 for _ in pattern.finditer(large)) / (len(large) / KIB)
        row = (
            f"| {label(pattern)} | {density:,.0f} | {per_kib(t16, small)} | {per_kib(t64, large)} |"
        )
        row += f" {t64 / t16:.1f} |" if t16 else " - |"
        if not options.skip_re:
            python = re.compile(pattern.source, pattern.flags)
            prefix, unit = worst_input(python, pattern, KIB, options.cutoff)
            cells = []
            for size in (KIB, 4 * KIB):
                text = build(prefix, unit, size)
                cells.append(per_kib(median_seconds(python, text, 1, options.cutoff), text))
            unfinished += cells[-1] == "did not finish"
            row += f" {cells[0]} | {cells[1]} |"
        print(row, flush=True)
    print(f"\nWorst with RE2: {worst_after:,.1f} µs/KiB at 64 KiB.")
    if not options.skip_re:
        print(
            f"Python's re did not finish {unfinished} of them within {options.cutoff} s at 4 KiB."
        )


if __name__ == "__main__":
    main()
