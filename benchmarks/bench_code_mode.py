"""Code mode: context saved by one program, and what running calls from a program costs.

1. **Context saved** — 20 customer records, two lookups each (profile and orders), and a
   filtered summary (the customers who spent over 500). Direct: the model calls
   ``list_customers``, then 40 lookups (two batches), and reads every result. Code mode: the
   model writes one program and reads what it prints. Counted: the characters that enter the
   model's context (what the model writes — arguments or code — and what it reads — results),
   with and without the tool definitions. Target: ≥ 90% fewer.
2. **Overhead** — 100 calls of a trivial tool: ``execute_parallel`` of the 100 calls beside a
   program that ``asyncio.gather``s them (one batch) and one that awaits them one by one (100
   batches). Target: gather ≤ 2× ``execute_parallel`` plus the worker checkout. Beside them,
   bare Monty with no toolwire: the same programs with every call answered by a no-op, the
   floor of what a program's round trips to its worker cost (``--repeats N``; the rows take
   turns in every repeat, so a busy moment of the machine falls on all of them alike).
3. **Checkout** — a worker taken from the warm pool and given back (target ≤ 5 ms median).
4. **The CPython runtime** (``runtime="python"``, where bubblewrap runs) — its checkout (a
   program doing nothing: the sandbox, the interpreter, the socket's greeting) and the same
   100 gathered calls, beside Monty's.

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

from toolwire.calls import ToolCall
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.code_mode import CodeModeSettings
from toolwire.code_mode._run_code import CodeMode
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.presenting import present
from toolwire.registry import ToolRegistry
from toolwire.stores._sqlite import SqliteKeyValueBackend

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


async def _interleaved_ms(rows: dict[str, Any], repeats: int) -> dict[str, float]:
    """Each row's median milliseconds, the rows taking turns in every repeat (so a busy
    moment of the machine falls on all of them alike)."""
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(repeats):
        for name, fn in rows.items():
            started = time.perf_counter()
            await fn()
            times[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(found) for name, found in times.items()}


def _bare_drive(monty: Any, pool: Any, code: str) -> None:
    """A program in bare Monty (its synchronous pool): every call answered by a future, every
    batch by a no-op, no toolwire involved. The floor for a program's own round trips."""
    with pool.checkout(limits={"max_suspensions": 1000}, os_policy={"sleep": "zero"}) as session:
        snap = session.feed_start(code)
        while not isinstance(snap, monty.MontyComplete):
            if isinstance(snap, monty.FunctionSnapshot):
                snap = snap.resume({"future": ...})
            elif isinstance(snap, monty.FutureSnapshot):
                snap = snap.resume({c: {"return_value": "pong"} for c in snap.pending_call_ids})
            else:
                snap = snap.resume()


async def _bare_async(monty: Any, pool: Any, code: str) -> None:
    """The same in Monty's asynchronous pool (what ``run_code`` used to drive: every round trip
    wakes the event loop)."""
    async with pool.checkout(limits={"max_suspensions": 1000}, os_policy={"sleep": "zero"}) as s:
        snap = await s.feed_start(code)
        while not isinstance(snap, monty.MontyComplete):
            if isinstance(snap, monty.AsyncFunctionSnapshot):
                snap = await snap.resume({"future": ...})
            elif isinstance(snap, monty.AsyncFutureSnapshot):
                snap = await snap.resume(
                    {c: {"return_value": "pong"} for c in snap.pending_call_ids}
                )
            else:
                snap = await snap.resume()


async def _overhead(registry: ToolRegistry, mode: CodeMode, repeats: int) -> None:
    import anyio.to_thread
    import pydantic_monty as monty

    ctx = ToolContext(session_id="bench")
    calls = [ToolCall(id=f"c{i}", name="ping", args={}) for i in range(100)]
    gather = "import asyncio\nlen(await asyncio.gather(*[ping() for _ in range(100)]))"
    serial = "n = 0\nfor _ in range(100):\n    n += len(await ping())\nn"

    async def parallel() -> None:
        await registry.execute_parallel(calls, ctx)

    async def program(code: str) -> None:
        outcome = await registry.execute("run_code", {"code": code}, ctx)
        assert outcome.result.ok, outcome.result

    async def checkout() -> None:
        async with mode.workers.checkout({}):
            pass

    with monty.Monty(min_processes=1, max_processes=1) as pool:

        async def bare(code: str) -> None:
            await anyio.to_thread.run_sync(_bare_drive, monty, pool, code)

        rows = {
            "parallel": parallel,
            "gather": lambda: program(gather),
            "serial": lambda: program(serial),
            "bare": lambda: bare(gather),
            "bare_serial": lambda: bare(serial),
            "checkout": checkout,
        }
        for fn in rows.values():  # warm every path once
            await fn()
        ms = await _interleaved_ms(rows, repeats)
    # Apart: while an asynchronous pool is open, its runtime's threads slow every other Monty
    # session of the process (about 3× here), so it is measured on its own, beside the baseline.
    async with monty.AsyncMonty(min_processes=1, max_processes=1) as async_pool:
        rows = {"parallel": parallel, "bare_async": lambda: _bare_async(monty, async_pool, gather)}
        for fn in rows.values():
            await fn()
        apart = await _interleaved_ms(rows, repeats)
    ms["bare_async"] = apart["bare_async"] * ms["parallel"] / apart["parallel"]
    base = ms["parallel"]
    table = [
        ("execute_parallel (one batch)", "parallel"),
        ("program, asyncio.gather (one batch)", "gather"),
        ("program, one await at a time (100 batches)", "serial"),
        ("bare Monty, no toolwire: the same gather (sync pool, a thread)", "bare"),
        ("bare Monty, no toolwire: one await at a time", "bare_serial"),
        (
            "bare Monty, no toolwire: the gather in its async pool (measured apart, scaled)",
            "bare_async",
        ),
        ("worker checkout alone", "checkout"),
    ]
    print(f"medians of {repeats} repeats, the rows taking turns\n")
    print("| 100 calls of a trivial tool | median ms | × execute_parallel |")
    print("| --- | --- | --- |")
    for label, key in table:
        print(f"| {label} | {ms[key]:.2f} | {ms[key] / base:.2f}× |")
    limit = 2 * base + ms["checkout"]
    verdict = "pass" if ms["gather"] <= limit else "FAIL"
    floor = "within" if ms["bare"] <= limit else "above"
    ours = ms["gather"] - ms["bare"] - base
    print(f"\ngather ≤ 2× execute_parallel + checkout ({limit:.2f} ms): {verdict}")
    print(f"bare Monty alone ({ms['bare']:.2f} ms) is {floor} that limit")
    print(
        f"toolwire's own share of the gather (program − bare Monty − execute_parallel): "
        f"{ours:.2f} ms ({ours / ms['gather']:.0%})"
    )
    print(f"checkout ≤ 5 ms median: {'pass' if ms['checkout'] <= 5 else 'FAIL'}\n")


async def _python_runtime(tmp: Path, repeats: int) -> None:
    from toolwire.capabilities.kinds.process.sandbox import probe_bubblewrap

    probe = probe_bubblewrap()
    if not probe.usable:
        print(f"skipped: the sandbox cannot run here ({probe.reason})\n")
        return
    from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend

    kv = SqliteKeyValueBackend(tmp / "python.db")
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=SandboxedProcessBackend())
    registry = ToolRegistry(backends=backends, reducers=None)
    registry.register(ping)
    registry.register(CodeMode(registry, CodeModeSettings(python_runtime=True)).tool())
    ctx = ToolContext(session_id="bench", working_dir=str(tmp))
    gather = "import asyncio\nlen(await asyncio.gather(*[ping() for _ in range(100)]))"

    async def program(code: str, runtime: str) -> None:
        args = {"code": code, "runtime": runtime}
        outcome = await registry.execute("run_code", args, ctx)
        assert outcome.result.ok, outcome.result

    async with registry:
        await program(gather, "monty")  # warm the pool
        await program(gather, "python")
        medians = await _interleaved_ms(
            {
                "monty, a program doing nothing": lambda: program("1", "monty"),
                "monty, 100 calls gathered": lambda: program(gather, "monty"),
                "python, a program doing nothing (checkout)": lambda: program("1", "python"),
                "python, 100 calls gathered": lambda: program(gather, "python"),
            },
            repeats,
        )
        rows = list(medians.items())
    print("| run_code | median ms |")
    print("| --- | --- |")
    for label, ms in rows:
        print(f"| {label} | {ms:.2f} |")
    print()


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
            print("### The CPython runtime: checkout and 100 gathered calls\n")
            await _python_runtime(Path(tmp), repeats)
            print("### Peers\n")
            _peers()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="repeats of each overhead row")
    asyncio.run(main(parser.parse_args().repeats))
