"""Context economy of the built-in reducers over the real captured outputs.

For each fixture in ``tests/fixtures/outputs`` (see its ``manifest.json``) this prints the
characters before and after the tool's reducer, the share saved, and the median time of one
``reduce`` call. The time baseline, measured in the same run on the same text, is one
``split("\\n")`` + ``"\\n".join`` round trip: the least any line-based rewrite must do.

Run: ``python benchmarks/bench_reducers.py`` (``--repeat N`` to change the number of timings).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from toolwire.reducers import ReducerContext, default_reducers  # noqa: E402
from toolwire.results import Ok, ToolResult, err, ok  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "outputs"
LONG_CHARS = 8192


def median_us(action: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``action`` in microseconds over ``repeat`` runs (after a warm-up)."""
    action()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        action()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return statistics.median(samples)


def text_of(result: ToolResult) -> str:
    return result.value if isinstance(result, Ok) else result.error


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=51, help="timed runs per fixture")
    options = parser.parse_args()

    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    registry = default_reducers()
    print(f"Reducers over {len(manifest) - 1} real outputs; median of {options.repeat} runs.\n")
    print("| fixture | reducer | chars before | chars after | saved | µs/reduce | × baseline |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    long_savings: list[float] = []
    total_before = total_after = 0
    for name, meta in manifest.items():
        if name.startswith("_"):
            continue
        raw = (FIXTURES / name).read_text()
        exit_code = meta.get("exit_code")
        result = err(f"Command exited with code {exit_code}\n{raw}") if exit_code else ok(raw)
        before = text_of(result)
        ctx = ReducerContext(args=meta["args"])
        tool = meta["tool"]
        reducer = registry.get(tool)
        assert reducer is not None, tool
        after = text_of(reducer.reduce(result, ctx))
        saved = 1 - len(after) / len(before)
        reduce_us = median_us(lambda r=result, c=ctx, red=reducer: red.reduce(r, c), options.repeat)
        baseline_us = median_us(lambda t=before: "\n".join(t.split("\n")), options.repeat)
        ratio = reduce_us / baseline_us if baseline_us else float("nan")
        total_before += len(before)
        total_after += len(after)
        if len(before) > LONG_CHARS:
            long_savings.append(saved)
        print(
            f"| {name} | {tool} | {len(before):,} | {len(after):,} | {saved:.1%} | "
            f"{reduce_us:,.1f} | {ratio:,.1f} |"
        )
    print(
        f"\nAll fixtures: {total_before:,} → {total_after:,} chars "
        f"({1 - total_after / total_before:.1%} saved)."
    )
    if long_savings:
        print(
            f"Long fixtures (> {LONG_CHARS:,} chars): median {statistics.median(long_savings):.1%} "
            f"saved, worst {min(long_savings):.1%} (target ≥ 80%)."
        )


if __name__ == "__main__":
    main()
