"""Code mode: context saved by one program, and what running calls from a program costs.

1. **Context saved** — 20 customer records, two lookups each (profile and orders), and a
   filtered summary (the customers who spent over 500). Direct: the model calls
   ``list_customers``, then 40 lookups (two batches), and reads every result. Code mode: the
   model writes one program and reads what it prints. Counted: the characters that enter the
   model's context (what the model writes — arguments or code — and what it reads — results),
   with and without the tool definitions. Target: ≥ 90% fewer.
2. **Overhead** — 100 calls of a trivial tool: ``execute_parallel`` of the 100 calls beside a
   program that ``asyncio.gather``s them (one batch) and one that awaits them one by one (100
   batches). Target: gather ≤ 2× ``execute_parallel`` plus the worker checkout.
3. **Checkout** — a worker taken from the warm pool and given back (target ≤ 5 ms median).

pydantic-ai-harness's CodeMode and smolagents' local executor run in an environment of their
own (``bench_code_mode_peers.py``; ``TOOLWIRE_CODE_PEERS_PYTHON`` names its Python).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from toolwire.backends.kv.sqlite import SqliteKeyValueBackend
from toolwire.backends.resolver import CapabilityBackends
from toolwire.calls import ToolCall
from toolwire.code_mode import CodeModeSettings
from toolwire.code_mode.run_code import CodeMode
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.presenting import present
from toolwire.registry import ToolRegistry

N_CUSTOMERS = 20


@tool
async def list_customers() -> dict[str, Any]:
    """List the customer ids."""
    return {"ids": list(range(1, N_CUSTOMERS + 1))}


@tool
async def get_customer(customer_id: int) -> dict[str, Any]:
    """A customer's profile."""
    return {
        "id": customer_id,
        "name": f"Customer {customer_id}",
        "email": f"customer{customer_id}@example.com",
        "address": {"street": f"{customer_id} Main Street", "city": "Springfield", "zip": "12345"},
        "tier": ["bronze", "silver", "gold"][customer_id % 3],
        "created": "2023-04-01T12:00:00Z",
        "notes": "Prefers email contact. Account reviewed quarterly. " * 2,
    }


@tool
async def get_orders(customer_id: int) -> dict[str, Any]:
    """A customer's orders."""
    orders = [
        {
            "order_id": f"o-{customer_id}-{n}",
            "total": round(37.5 * ((customer_id * (n + 3)) % 11), 2),
            "status": "delivered",
            "items": [{"sku": f"sku-{n}-{k}", "qty": 1 + k} for k in range(3)],
        }
        for n in range(4)
    ]
    return {"customer_id": customer_id, "orders": orders}


@tool
async def ping() -> str:
    """Answer pong."""
    return "pong"


PROGRAM = """
import asyncio
ids = (await list_customers())["ids"]
profiles = await asyncio.gather(*[get_customer(customer_id=i) for i in ids])
orders = await asyncio.gather(*[get_orders(customer_id=i) for i in ids])
for p, o in zip(profiles, orders):
    spent = sum(x["total"] for x in o["orders"])
    if spent > 500:
        print(p["name"], p["tier"], round(spent, 2))
"""


def _registry(db: Path) -> tuple[ToolRegistry, CodeMode]:
    kv = SqliteKeyValueBackend(db)
    registry = ToolRegistry(
        CapabilityBackends(kv_store_factory=kv.scoped, processes=None), reducers=None
    )
    registry.register_all([list_customers, get_customer, get_orders, ping])
    mode = CodeMode(registry, CodeModeSettings())
    registry.register(mode.tool())
    return registry, mode


def _defs_chars(registry: ToolRegistry, names: set[str]) -> int:
    return sum(len(json.dumps(d)) for d in registry.definitions() if d["name"] in names)


async def _context_saved(registry: ToolRegistry) -> None:
    ctx = ToolContext(session_id="bench")
    written = read = 0
    first = await registry.execute("list_customers", {}, ctx)
    written += len("{}")
    read += len(present(first, registry.get("list_customers")))
    for name in ("get_customer", "get_orders"):
        calls = [
            ToolCall(id=f"{name}-{i}", name=name, args={"customer_id": i})
            for i in range(1, N_CUSTOMERS + 1)
        ]
        written += sum(len(json.dumps({"customer_id": i})) + len(name) for i in range(N_CUSTOMERS))
        for outcome in await registry.execute_parallel(calls, ctx):
            read += len(present(outcome, registry.get(name)))
    direct = written + read
    outcome = await registry.execute("run_code", {"code": PROGRAM}, ctx)
    program_read = len(present(outcome, registry.get("run_code")))
    program = len(PROGRAM) + program_read
    defs_direct = _defs_chars(registry, {"list_customers", "get_customer", "get_orders"})
    defs_code = _defs_chars(registry, {"run_code"})
    print("| approach | model writes | model reads | total | with definitions |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| direct calls (41) | {written} | {read} | {direct} | {direct + defs_direct} |")
    print(f"| one program | {len(PROGRAM)} | {program_read} | {program} | {program + defs_code} |")
    saved = 1 - program / direct
    saved_defs = 1 - (program + defs_code) / (direct + defs_direct)
    verdict = "pass" if saved >= 0.9 else "FAIL"
    print(
        f"\ncontext saved: {saved:.1%} ({saved_defs:.1%} counting the definitions once); "
        f"target ≥ 90%: {verdict}\n"
    )


async def _median_ms(fn: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def _overhead(registry: ToolRegistry, mode: CodeMode, repeats: int) -> None:
    ctx = ToolContext(session_id="bench")
    calls = [ToolCall(id=f"c{i}", name="ping", args={}) for i in range(100)]
    gather = "import asyncio\nlen(await asyncio.gather(*[ping() for _ in range(100)]))"
    serial = "n = 0\nfor _ in range(100):\n    n += len(await ping())\nn"

    async def parallel() -> None:
        await registry.execute_parallel(calls, ctx)

    async def program(code: str) -> None:
        outcome = await registry.execute("run_code", {"code": code}, ctx)
        assert outcome.result.ok, outcome.result

    async def raw_monty() -> None:  # the interpreter's own round trips, no tool runs
        import pydantic_monty as monty

        async with await mode.workers.checkout({}) as session:
            snap = await session.feed_start(gather)
            while not isinstance(snap, monty.MontyComplete):
                if isinstance(snap, monty.AsyncFunctionSnapshot):
                    snap = await snap.resume({"future": ...})
                elif isinstance(snap, monty.AsyncFutureSnapshot):
                    answers = {c: {"return_value": "pong"} for c in snap.pending_call_ids}
                    snap = await snap.resume(answers)
                else:
                    snap = await snap.resume()

    async def checkout() -> None:
        async with await mode.workers.checkout({}):
            pass

    await program(gather)  # warm the pool
    base = await _median_ms(parallel, repeats)
    together = await _median_ms(lambda: program(gather), repeats)
    one_by_one = await _median_ms(lambda: program(serial), repeats)
    raw = await _median_ms(raw_monty, repeats)
    taken = await _median_ms(checkout, repeats * 4)
    print("| 100 calls of a trivial tool | median ms | × execute_parallel |")
    print("| --- | --- | --- |")
    print(f"| execute_parallel (one batch) | {base:.2f} | 1.00× |")
    print(f"| program, asyncio.gather (one batch) | {together:.2f} | {together / base:.2f}× |")
    serial_ratio = one_by_one / base
    print(
        f"| program, one await at a time (100 batches) | {one_by_one:.2f} | {serial_ratio:.2f}× |"
    )
    print(f"| the same gather in bare Monty, no tools | {raw:.2f} | {raw / base:.2f}× |")
    print(f"| worker checkout alone | {taken:.2f} | |")
    limit = 2 * base + taken
    verdict = "pass" if together <= limit else "FAIL"
    print(f"\ngather ≤ 2× execute_parallel + checkout ({limit:.2f} ms): {verdict}; ")
    print(f"checkout ≤ 5 ms median: {'pass' if taken <= 5 else 'FAIL'}\n")


def _peers() -> None:
    """The peers run in their own environment (``bench_code_mode_peers.py``)."""
    python = os.environ.get("TOOLWIRE_CODE_PEERS_PYTHON", "")
    script = Path(__file__).with_name("bench_code_mode_peers.py")
    if python and Path(python).exists():
        subprocess.call([python, str(script)])
        return
    print(
        "skipped: set TOOLWIRE_CODE_PEERS_PYTHON to a Python with smolagents and "
        "pydantic-ai-harness[codemode] installed (see bench_code_mode_peers.py)"
    )


async def main(repeats: int = 20) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        registry, mode = _registry(Path(tmp) / "kv.db")
        async with registry:
            print("### Context saved: 20 records, two lookups each, a filtered summary\n")
            await _context_saved(registry)
            print("### Overhead: 100 calls\n")
            await _overhead(registry, mode, repeats)
            print("### Peers\n")
            _peers()


if __name__ == "__main__":
    asyncio.run(main())
