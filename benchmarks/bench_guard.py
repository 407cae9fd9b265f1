"""The command guard: time per command on its corpus, and time per KiB on long commands.

1. Every command of ``tests/safety/guard_corpus/corpus.json`` (catastrophic shapes and safe
   look-alikes) is checked ``--repeats`` times; the table gives the median, 90th percentile and
   worst of the per-command medians, in µs. The baseline, measured in the same run, is
   tree-sitter's parse of the same command alone: the floor any parser-based guard pays.
2. Long commands built from one shape repeated (a chain of commands, nested ``bash -c``
   scripts, a here-doc of data, a pipeline of substitutions) are checked at 4, 16 and 60 KiB
   (the cap is 64 KiB); the table gives µs per KiB (the fastest run: noise only adds) and the
   growth from 16 to 60 KiB (3.75 when the time is linear in the length).

Run: ``python benchmarks/bench_guard.py`` (``--repeats N``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from toolwire.safety.bash._syntax import parse  # noqa: E402
from toolwire.safety.command_guard import check_command  # noqa: E402

CORPUS = ROOT / "tests" / "safety" / "guard_corpus" / "corpus.json"
KIB = 1024


def _median_us(fn: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def _best_us(fn: Callable[[], object], repeats: int) -> float:
    """The fastest of ``repeats`` runs: the machine's noise only ever adds time."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return min(samples) * 1e6


def _row(label: str, count: int, guard: list[float], parse_only: list[float]) -> str:
    ordered = sorted(guard)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return (
        f"| {label} | {count} | {statistics.median(guard):.0f} | {p90:.0f} | {ordered[-1]:.0f} "
        f"| {statistics.median(parse_only):.0f} |"
    )


def corpus_table(repeats: int) -> None:
    """Per-command medians over the corpus, beside the parse alone."""
    corpus = json.loads(CORPUS.read_text("utf-8"))
    groups = {
        "catastrophic": [c for commands in corpus["catastrophic"].values() for c in commands],
        "safe look-alikes": corpus["safe"],
    }
    refused = sum(check_command(c) is not None for c in groups["catastrophic"])
    allowed = sum(check_command(c) is None for c in groups["safe look-alikes"])
    print("| commands | count | guard median µs | p90 µs | worst µs | parse alone median µs |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, commands in groups.items():
        guard = [_median_us(lambda c=c: check_command(c), repeats) for c in commands]
        parse_only = [_median_us(lambda c=c: parse(c), repeats) for c in commands]
        print(_row(label, len(commands), guard, parse_only))
    print(
        f"\nrefused {refused}/{len(groups['catastrophic'])} catastrophic, "
        f"allowed {allowed}/{len(groups['safe look-alikes'])} look-alikes"
    )
    print("\n| category | commands |\n|---|---:|")
    for category, commands in corpus["catastrophic"].items():
        print(f"| {category} | {len(commands)} |")


def _fill(unit: str, size: int) -> str:
    """``unit`` repeated whole, to about ``size`` characters."""
    return unit * max(1, size // len(unit))


SHAPES: dict[str, Callable[[int], str]] = {
    "chain of commands": lambda n: _fill("ls -la src && grep -r x . | wc -l; ", n),
    "bash -c script": lambda n: "bash -c " + shlex.quote(_fill("echo a; cd /tmp && ls; ", n - 20)),
    "here-doc of data": lambda n: (
        "cat > notes.txt <<'EOF'\n" + _fill("rm -rf ~ is data\n", n - 40) + "EOF"
    ),
    "substitutions": lambda n: _fill('echo "$(date)" `pwd` $(id -u); ', n),
}


def scaling_table(repeats: int) -> None:
    """µs per KiB at 4, 16 and 60 KiB, and the growth from 16 to 60 KiB."""
    sizes = (4 * KIB, 16 * KIB, 60 * KIB)
    print(
        "\n| long command | 4 KiB µs/KiB | 16 KiB µs/KiB | 60 KiB µs/KiB "
        "| growth 16→60 (3.75 = linear) |"
    )
    print("|---|---:|---:|---:|---:|")
    for label, build in SHAPES.items():
        times = []
        for size in sizes:
            command = build(size)
            assert check_command(command) is None, label
            times.append(_best_us(lambda c=command: check_command(c), max(3, repeats // 4)))
        per_kib = [t / (s / KIB) for t, s in zip(times, sizes, strict=True)]
        print(
            f"| {label} | {per_kib[0]:.0f} | {per_kib[1]:.0f} | {per_kib[2]:.0f} "
            f"| {times[2] / times[1]:.2f} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    corpus_table(args.repeats)
    scaling_table(args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
