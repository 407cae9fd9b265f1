"""What result handles and approvals cost on W1 when they are configured but not triggered.

W1 is the shared harness's first workload: 20,000 sequential calls of ``async add(a, b) ->
str``, each one `execute_parallel` of one `ToolCall` with the model's JSON string. Each row
runs it on a registry that differs from the baseline by one thing:

- ``handles configured``: ``result_handles=ResultHandles()`` over an in-memory store; no result
  is over its budget, so nothing is kept (the cost is a length comparison per call);
- ``approvals store configured``: ``approvals=Approvals(store=...)``; ``add`` needs none (the
  cost is the attribute check every tool pays);
- ``approval rule that answers False``: ``add`` has ``requires_approval=<rule>`` and the rule
  lets the call through (the stage runs: the rule is called and answers ``False``).

Rows are measured interleaved, ``--repeats`` times; the table shows each row's median µs per
call and its difference from the baseline's median. Run it alone with
``python benchmarks/bench_stages_handles.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio

from toolwire import ToolCall, ToolContext, ToolRegistry, tool
from toolwire.backends.kv import MemoryKeyValueBackend
from toolwire.backends.resolver import CapabilityBackends
from toolwire.execution.approvals import Approvals
from toolwire.execution.handles import ResultHandles
from toolwire.tools import Tool

CALLS = 20_000


async def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


def _never(args: Mapping[str, Any], ctx: ToolContext) -> bool:
    return False


def _registries() -> dict[str, ToolRegistry]:
    kv = MemoryKeyValueBackend()
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    plain: Tool = tool(add)
    ruled: Tool = tool(requires_approval=_never)(add)
    made: dict[str, tuple[ToolRegistry, Tool]] = {
        "baseline (W1)": (ToolRegistry(), plain),
        "handles configured, not triggered": (
            ToolRegistry(backends=backends, result_handles=ResultHandles()),
            plain,
        ),
        "approvals store configured, no tool needs one": (
            ToolRegistry(approvals=Approvals(store=kv.scoped("approvals", "tool:approvals"))),
            plain,
        ),
        "approval rule that answers False": (
            ToolRegistry(approvals=Approvals(store=kv.scoped("approvals", "tool:approvals"))),
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
