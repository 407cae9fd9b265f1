"""What quotas, tasks and the effect journal cost on W1 when configured but not triggered.

W1 is the shared harness's first workload: 20,000 sequential calls of ``async add(a, b) ->
str``, each one `execute_parallel` of one `ToolCall` with the model's JSON string. Each row
runs it on a registry that differs from the baseline by one thing:

- ``quotas configured, add not covered``: ``quotas=Quotas([...])`` whose quota covers another
  tool (the cost is looking up, once per call, which quotas cover ``add``);
- ``tasks: a registry with Tasks(...)``: ``add`` is not ``long_running`` and the context sets
  no ``hand_off_s`` (the cost is the attribute checks every call pays);
- ``journal store configured``: ``effects=Effects(store=...)``; ``add`` declares no side
  effects (the same attribute checks).

And, to show what the stages cost once they act (not the "under 1 µs" target):

- ``quota covering add``: a calls-per-window quota on ``add`` that never refuses (two store
  operations per call: an increment, and the expiry set on the first call of a window);
- ``long_running add, ends before its hand-off``: the call runs in a background task the
  caller waits for (no task record is written);
- ``side_effects add``: the journal writes the intent and the result of every call.

Rows are measured interleaved, ``--repeats`` times; the table shows each row's median µs per
call and its difference from the baseline's median. Run it alone with
``python benchmarks/bench_stages_quotas.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import anyio

from toolwire import ToolCall, ToolContext, ToolRegistry, tool
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.execution.effects import Effects
from toolwire.execution.quotas import Quota, Quotas
from toolwire.execution.tasks import Tasks
from toolwire.stores import MemoryKeyValueBackend
from toolwire.tools import Tool

CALLS = 20_000
TRIGGERED = "(acting)"


async def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


def _registries() -> dict[str, ToolRegistry]:
    kv = MemoryKeyValueBackend()
    store = kv.scoped("bench", "tool:bench")
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    plain: Tool = tool(add)
    elsewhere = Quotas([Quota(name="other", tools=["search"], calls=10, window_s=60)])
    covering = Quotas([Quota(name="add", tools=["add"], calls=10**12, window_s=3600)])
    made: dict[str, tuple[ToolRegistry, Tool]] = {
        "baseline (W1)": (ToolRegistry(), plain),
        "quotas configured, add not covered": (ToolRegistry(quotas=elsewhere), plain),
        "tasks: Tasks(...) configured, no hand-off": (
            ToolRegistry(tasks=Tasks(store, hand_off_s=1.0)),
            plain,
        ),
        "journal store configured, add has no side effects": (
            ToolRegistry(effects=Effects(store=store)),
            plain,
        ),
        f"{TRIGGERED} quota covering add": (
            ToolRegistry(backends, quotas=covering),
            plain,
        ),
        f"{TRIGGERED} long_running add, ends before its hand-off": (
            ToolRegistry(tasks=Tasks(store, hand_off_s=1.0)),
            tool(long_running=True)(add),
        ),
        f"{TRIGGERED} side_effects add (journaled)": (
            ToolRegistry(effects=Effects(store=store)),
            tool(side_effects=True)(add),
        ),
    }
    for registry, added in made.values():
        registry.register(added)
    return {label: registry for label, (registry, _) in made.items()}


async def _w1(registry: ToolRegistry, calls: int) -> float:
    """µs per call of W1 on ``registry`` (fresh call ids: the journal acts on every call)."""
    ctx = ToolContext(session_id="bench")
    execute: Callable[..., Any] = registry.execute_parallel
    stamp = time.perf_counter_ns()
    started = time.perf_counter()
    for index in range(calls):
        call = ToolCall(id=f"c{stamp}-{index}", name="add", args='{"a": 1, "b": 2}')
        outcomes = await execute([call], ctx)
        assert outcomes[0].result.ok
    return (time.perf_counter() - started) / calls * 1e6


async def _measure(repeats: int) -> dict[str, list[float]]:
    registries = _registries()
    for registry in registries.values():  # warm up every path once
        await _w1(registry, 1000)
    timings: dict[str, list[float]] = {label: [] for label in registries}
    for _ in range(repeats):
        for label, registry in registries.items():
            timings[label].append(await _w1(registry, CALLS))
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    timings = anyio.run(_measure, args.repeats)
    base = statistics.median(timings["baseline (W1)"])
    print(f"W1: {CALLS:,} sequential calls, median of {args.repeats} interleaved runs\n")
    print("| registry | µs/call | vs baseline |")
    print("| --- | ---: | ---: |")
    for label, values in timings.items():
        median = statistics.median(values)
        delta = "—" if label.startswith("baseline") else f"{median - base:+.2f} µs"
        print(f"| {label} | {median:.2f} | {delta} |")


if __name__ == "__main__":
    main()
