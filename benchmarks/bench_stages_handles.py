"""What result handles and approvals cost on W1 when they are configured but not triggered.

W1 is the shared harness's first workload: 20,000 sequential calls of ``async add(a, b) ->
str``, each one `execute_parallel` of one `ToolCall` with the model's JSON string. Each row
runs it on a registry that differs from the baseline by one thing:

- ``handles configured``: ``result_handles=ResultHandles()`` over an in-memory store; no result
  is over its budget, so nothing is kept (the cost is a length comparison per call);
- ``approvals store configured``: ``approvals=Approvals(store=...)``; ``add`` needs none (the
  cost is the attribute check every tool pays);
- ``approval rule that answers False``: ``add`` has ``requires_approval=<rule>`` and the rule
  lets the call through (the rule is called on every call; nothing is awaited).

Every row's registry has the same backends (an in-memory store). Rows are measured
interleaved, ``--repeats`` times; the table shows each row's best and median µs per call, and
the difference between its best and the baseline's best (the best run is the one least
disturbed by whatever else the machine was doing). Run it alone with
``python benchmarks/bench_stages_handles.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import timeit
from collections.abc import Callable, Mapping
from typing import Any

import anyio

from toolwire import ToolCall, ToolContext, ToolRegistry, tool
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.execution.approvals import Approvals
from toolwire.execution.handles import ResultHandles
from toolwire.stores import MemoryKeyValueBackend
from toolwire.tools import Tool

CALLS = 20_000


async def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


def _never(args: Mapping[str, Any], ctx: ToolContext) -> bool:
    return False


def _registries() -> dict[str, ToolRegistry]:
    """The rows: the same registry (the same backends, an in-memory store), one thing apart."""
    kv = MemoryKeyValueBackend()
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    store = kv.scoped("approvals", "tool:approvals")
    plain: Tool = tool(add)
    ruled: Tool = tool(requires_approval=_never)(add)
    made: dict[str, tuple[ToolRegistry, Tool]] = {
        "baseline (W1)": (ToolRegistry(backends), plain),
        "handles configured, not triggered": (
            ToolRegistry(backends, result_handles=ResultHandles()),
            plain,
        ),
        "approvals store configured, no tool needs one": (
            ToolRegistry(backends, approvals=Approvals(store=store)),
            plain,
        ),
        "approval rule that answers False": (
            ToolRegistry(backends, approvals=Approvals(store=store)),
            ruled,
        ),
    }
    for registry, added in made.values():
        registry.register(added)
    return {label: registry for label, (registry, _) in made.items()}


async def _w1(registry: ToolRegistry) -> float:
    """µs per call of W1 on ``registry``."""
    ctx = ToolContext(session_id="bench")
    execute: Callable[..., Any] = registry.execute_parallel
    started = time.perf_counter()
    for index in range(CALLS):
        call = ToolCall(id=f"c{index}", name="add", args='{"a": 1, "b": 2}')
        outcomes = await execute([call], ctx)
        assert outcomes[0].result.ok
    return (time.perf_counter() - started) / CALLS * 1e6


async def _measure(repeats: int) -> dict[str, list[float]]:
    registries = _registries()
    for registry in registries.values():  # warm up every path once
        await _w1(registry)
    timings: dict[str, list[float]] = {label: [] for label in registries}
    for _ in range(repeats):
        for label, registry in registries.items():
            timings[label].append(await _w1(registry))
    return timings


def _isolated() -> dict[str, float]:
    """ns per call of exactly what each configured, untriggered stage adds to a call (timeit,
    best of 7): the W1 table's differences are that small, and W1 on a busy machine is not."""
    from toolwire.execution.approvals import needs_approval
    from toolwire.results import Ok

    handles = ResultHandles()
    result = Ok("3")
    plain = tool(add)
    ruled = tool(requires_approval=_never)(add)
    ctx = ToolContext(session_id="bench")
    args = {"a": 1, "b": 2}
    checks: dict[str, Callable[[], object]] = {
        "handles: attribute + type + length check": lambda: (
            handles and type(result) is Ok and len(result.value) > 80_000
        ),
        "approvals: the attribute check every tool pays": lambda: plain.requires_approval,
        "approval rule that answers False": lambda: (
            ruled.requires_approval and needs_approval(ruled, args, ctx)
        ),
        "nothing (the lambda call itself)": lambda: None,
    }
    number = 1_000_000
    return {
        label: min(timeit.repeat(check, number=number, repeat=7)) / number * 1e9
        for label, check in checks.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    timings = anyio.run(_measure, args.repeats)
    base = min(timings["baseline (W1)"])
    print(f"W1: {CALLS:,} sequential calls per run, {args.repeats} interleaved runs per row\n")
    print("| registry | best µs/call | median µs/call | best vs baseline |")
    print("| --- | ---: | ---: | ---: |")
    for label, values in timings.items():
        best = min(values)
        delta = "—" if label.startswith("baseline") else f"{best - base:+.2f} µs"
        print(f"| {label} | {best:.2f} | {statistics.median(values):.2f} | {delta} |")
    print("\nEach check alone (timeit, best of 7 runs of 1,000,000)\n")
    print("| check | ns/call |")
    print("| --- | ---: |")
    for label, nanoseconds in _isolated().items():
        print(f"| {label} | {nanoseconds:.0f} |")


if __name__ == "__main__":
    main()
