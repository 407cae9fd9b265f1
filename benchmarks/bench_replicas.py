"""Calls/s through HAProxy with one, two and three `toolwire serve` replicas on one shared
store (Redis, then PostgreSQL), and the store operations each kind of call costs.

The clusters are the scale-out test's (``tests/scaleout/replica_cluster.py``): real
``toolwire serve --http`` subprocesses with ``[replicas]`` on (``TOOLWIRE_REPLICAS=1``), each
with its own ``toolwire.toml`` naming the same store (a Redis database or PostgreSQL database
claimed for the run), behind HAProxy in round-robin. ``wrk`` (driven with
``bench_mcp_load.py``'s Lua script) POSTs a stateless 2026-07-28 ``tools/call`` of
``todo_read`` — one store read, plus the stateless session's read records — through the
proxy with 50 connections; median of ``--repeats``.

Nothing is pinned to a core: on a 2-core machine the replicas, HAProxy, wrk and the store all
share both cores, so a second replica can only add what the first left idle, and a third
adds nothing but scheduling. The figures say what the design costs here, not how it scales on
machines of their own.

Then, on Redis, every command the store receives is counted (``MONITOR``, filtered to the
claimed database, heartbeats slowed to once an hour) while a known number of calls of each
kind runs, which gives the store round trips per call that ``docs/scaling.md`` multiplies
out for a hundred replicas (a compare-and-set is one EVALSHA; the GET and SET its script runs
are listed apart).

    python benchmarks/bench_replicas.py [--seconds 5] [--connections 50] [--repeats 3]
        [--stores redis,postgres] [--calls 40]
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))  # the test helpers it imports
sys.path.insert(0, str(ROOT / "tests" / "scaleout"))  # the launcher the scale-out test uses
sys.path.insert(0, str(HERE))

from replica_cluster import (  # noqa: E402
    Cluster,
    claimed_postgres_database,
    claimed_redis_database,
    running_cluster,
)

from bench_mcp_load import (  # noqa: E402
    ACCEPT,
    LEGACY,
    MODERN,
    request_for,
    wrk_argv,
    wrk_result,
    wrk_script,
)

STORES: dict[str, Callable[[], AbstractContextManager[str]]] = {
    "redis": claimed_redis_database,
    "postgres": claimed_postgres_database,
}
PORTS = {"redis": 6379, "postgres": 5432}


def reachable(store: str) -> bool:
    """Whether the store's server accepts connections on 127.0.0.1 (``make services``)."""
    try:
        socket.create_connection(("127.0.0.1", PORTS[store]), timeout=1).close()
    except OSError:
        return False
    return True


META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


# -- one stateless call, as wrk sends it ------------------------------------------------------


def stateless_call(tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The body and headers of a 2026-07-28 ``tools/call`` (no session)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": META},
    }
    headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": tool}
    return body, headers


def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    """One request; its httpx answer (bounded by 30 s)."""
    import httpx

    return httpx.post(url, json=body, headers={"accept": ACCEPT, **headers}, timeout=30)


def wrk(
    url: str, body: dict[str, Any], headers: dict[str, str], seconds: int, connections: int
) -> tuple[float, float]:
    """calls/s and p99 (ms) of ``connections`` connections for ``seconds`` (every answer a
    2xx, or this raises)."""
    probe = post(url, body, headers)
    if probe.status_code != 200 or b'"isError":false' not in probe.content.replace(b" ", b""):
        raise RuntimeError(f"the probe call failed: {probe.status_code} {probe.content[:300]!r}")
    script = wrk_script(body, headers)
    try:
        out = subprocess.run(
            wrk_argv(script, url, seconds, connections),
            capture_output=True,
            text=True,
            check=True,
            timeout=seconds + 60,
        )
    finally:
        os.unlink(script)
    requests, duration_us, p99_us = wrk_result(out.stdout)
    return requests / (duration_us / 1e6), p99_us / 1000


# -- store operations per call (Redis MONITOR) ------------------------------------------------


@contextmanager
def monitored(store_url: str) -> Iterator[list[tuple[float, str]]]:
    """Every command Redis receives on ``store_url``'s database while the block runs, as
    (time, command); a command a Lua script ran (``compare_and_set``'s GET and SET inside its
    EVALSHA) is named ``lua:<command>`` (a ``MONITOR`` connection read in a thread)."""
    import redis

    database = int(store_url.rsplit("/", 1)[1])
    seen: list[tuple[float, str]] = []
    stop = threading.Event()
    client = redis.Redis.from_url(store_url.rsplit("/", 1)[0] + "/0", socket_timeout=1)
    ready = threading.Event()

    def read() -> None:
        with client.monitor() as monitor:
            ready.set()
            while not stop.is_set():
                try:
                    command = monitor.next_command()
                except (redis.TimeoutError, redis.ConnectionError):
                    continue
                if int(command["db"]) == database:
                    name = command["command"].split(" ", 1)[0]
                    if command.get("client_type") == "lua":
                        name = f"lua:{name}"
                    seen.append((float(command["time"]), name))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield seen
    finally:
        stop.set()
        thread.join(5)
        client.close()


def _counted(seen: list[tuple[float, str]], start: float, end: float) -> collections.Counter[str]:
    return collections.Counter(command for stamp, command in seen if start <= stamp <= end)


def call_kinds(cluster: Cluster, run: str) -> list[tuple[str, str, dict[str, Any], bool]]:
    """(label, tool, arguments, legacy session?) of the calls whose store operations are
    counted; the files they read live in the cluster's shared root."""
    shared = cluster.shared
    (shared / "small.txt").write_text("one line\n")
    (shared / "big.txt").write_text("".join(f"line {n:05d} {'x' * 40}\n" for n in range(600)))
    return [
        ("todo_read, stateless", "todo_read", {}, False),
        ("todo_read, legacy session", "todo_read", {}, True),
        ("read_file (records the read)", "read_file", {"path": str(shared / "small.txt")}, False),
        (
            "write_file (checks the record)",
            "write_file",
            {"path": str(shared / f"w-{run}.txt"), "content": "x"},
            False,
        ),
        (
            "memory_write (compare-and-set)",
            "memory_write",
            {"key": f"bench-{run}", "content": "x", "mode": "replace"},
            False,
        ),
        (
            "search_files under a global quota",
            "search_files",
            {"pattern": "zzz", "path": str(shared / "small.txt")},
            False,
        ),
        ("read_file trimmed into a handle", "read_file", {"path": str(shared / "big.txt")}, False),
    ]


def store_operations(cluster: Cluster, calls: int) -> list[tuple[str, float, str]]:
    """(label, round trips per call, the commands) for each kind of `call_kinds`; the
    commands a script ran inside its round trip are listed, not counted."""
    run = str(int(time.time()))
    rows = []
    with monitored(cluster.store_url) as seen:
        for label, tool, arguments, legacy in call_kinds(cluster, run):
            body, headers = stateless_call(tool, arguments)
            if legacy:
                _, headers = request_for(cluster.url, LEGACY)  # a handshake-era session
                body["params"].pop("_meta")
            post(cluster.url, body, headers)  # warm: first reads, pins, sessions restored
            time.sleep(0.3)
            start = time.time()
            for _ in range(calls):
                answer = post(cluster.url, body, headers)
                if answer.status_code != 200:
                    raise RuntimeError(f"{label}: {answer.status_code} {answer.text[:200]}")
            end = time.time()
            time.sleep(0.3)  # MONITOR lags a little behind
            counted = _counted(seen, start, end)
            mix = ", ".join(f"{name} {count / calls:.1f}" for name, count in counted.most_common())
            trips = sum(count for name, count in counted.items() if not name.startswith("lua:"))
            rows.append((label, trips / calls, mix))
    return rows


# -- the report -------------------------------------------------------------------------------


def throughput(store: str, args: argparse.Namespace) -> None:
    """The calls/s table of one store."""
    body, headers = stateless_call("todo_read", {})
    print(f"\n### {store}\n")
    print("| replicas | calls/s | p99 ms | vs one replica |")
    print("| ---: | ---: | ---: | ---: |")
    first: float | None = None
    with STORES[store]() as store_url:
        for size in (1, 2, 3):
            home = Path(tempfile.mkdtemp(prefix=f"toolwire-bench-replicas-{store}-"))
            try:
                with running_cluster(
                    home, store_url, replicas=size, quota_calls=10**9, check_ms=2000
                ) as cluster:
                    figures = [
                        wrk(cluster.url, body, headers, args.seconds, args.connections)
                        for _ in range(args.repeats)
                    ]
            finally:
                shutil.rmtree(home, ignore_errors=True)
            rate = statistics.median(f[0] for f in figures)
            p99 = statistics.median(f[1] for f in figures)
            first = first or rate
            print(f"| {size} | {rate:,.0f} | {p99:.1f} | {rate / first:.2f}x |", flush=True)


def operations(args: argparse.Namespace) -> None:
    """The store operations per call, on Redis."""
    print(f"\n### Store operations per call (Redis MONITOR, {args.calls} calls of each)\n")
    print("| call | round trips | commands per call (lua: run inside a script) |")
    print("| --- | ---: | --- |")
    with claimed_redis_database() as store_url:
        home = Path(tempfile.mkdtemp(prefix="toolwire-bench-ops-"))
        slow_heartbeat = {"TOOLWIRE_REPLICA_HEARTBEAT_S": "3600"}
        try:
            with running_cluster(
                home, store_url, replicas=3, quota_calls=10**9, env=slow_heartbeat
            ) as cluster:
                for label, per_call, mix in store_operations(cluster, args.calls):
                    print(f"| {label} | {per_call:.1f} | {mix} |", flush=True)
        finally:
            shutil.rmtree(home, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stores", default="redis,postgres")
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    missing = [tool for tool in (os.environ.get("WRK", "wrk"), "haproxy") if not shutil.which(tool)]
    if missing:
        print(f"skipped: {', '.join(missing)} missing (scripts/system-deps.sh installs them)")
        return 0
    print(
        f"wrk, {args.connections} connections, {args.seconds} s, median of {args.repeats}; "
        f"stateless tools/call of todo_read through HAProxy (round-robin); {os.cpu_count()} "
        "cores shared by everything"
    )
    for store in args.stores.split(","):
        if reachable(store):
            throughput(store, args)
        else:
            print(f"\n### {store}\n\nskipped: nothing listens on 127.0.0.1:{PORTS[store]}")
    if reachable("redis"):
        operations(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
