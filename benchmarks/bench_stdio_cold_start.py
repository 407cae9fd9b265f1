"""Stdio cold start: spawn to the first ``tools/list`` answer (initialize, initialized,
tools/list), toolwire against the SDK's ``MCPServer`` serving the same trivial tool.

Rows, measured interleaved in one run (each server pinned to one core with ``taskset``):

- the SDK's ``MCPServer`` (``bench_mcp_load.py --serve sdk``): the baseline;
- toolwire's ``serve_registry`` with the same tool, with the lean stdio loop
  (`toolwire.mcp.server.fast_stdio`) and without it (``TOOLWIRE_MCP_LEAN=0``);
- ``toolwire serve --stdio`` with its default configuration (39 built-in tools, the SQLite
  store, the sandbox probe), with and without the lean loop.

Target (issue 15): toolwire's ``serve_registry`` cold start <= 60% of the SDK's.

    python benchmarks/bench_stdio_cold_start.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOAD_BENCH = HERE / "bench_mcp_load.py"
SERVER_CPU = "1"
LEGACY = "2025-06-18"
HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
LEAN_OFF = {"TOOLWIRE_MCP_LEAN": "0"}
ROWS: list[tuple[str, list[str], dict[str, str]]] = [
    ("SDK MCPServer", [str(LOAD_BENCH), "--serve", "sdk", "--transport", "stdio"], {}),
    (
        "toolwire serve_registry",
        [str(LOAD_BENCH), "--serve", "toolwire", "--transport", "stdio"],
        {},
    ),
    (
        "toolwire serve_registry, TOOLWIRE_MCP_LEAN=0",
        [str(LOAD_BENCH), "--serve", "toolwire", "--transport", "stdio"],
        LEAN_OFF,
    ),
    ("toolwire serve --stdio (default config)", ["-m", "toolwire", "serve", "--stdio"], {}),
    (
        "toolwire serve --stdio, TOOLWIRE_MCP_LEAN=0",
        ["-m", "toolwire", "serve", "--stdio"],
        LEAN_OFF,
    ),
]


def cold_start_ms(args: list[str], env: dict[str, str]) -> float:
    """Spawn ``python args`` and time until its ``tools/list`` answer arrives."""
    payload = "".join(json.dumps(line) + "\n" for line in HANDSHAKE).encode()
    argv = ["taskset", "-c", SERVER_CPU, sys.executable, *args]
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(payload)
    process.stdin.flush()
    try:
        for raw in process.stdout:
            if json.loads(raw).get("id") == 2:
                return (time.perf_counter() - started) * 1000
        raise RuntimeError(f"{' '.join(args)} never answered tools/list")
    finally:
        process.kill()
        process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    options = parser.parse_args()
    if shutil.which("taskset") is None:
        print("skipped: taskset is missing")
        return 0
    os.chdir(tempfile.mkdtemp(prefix="toolwire-cold-"))  # the CLI's project: a fresh directory
    times: dict[str, list[float]] = {name: [] for name, _, _ in ROWS}
    for _ in range(options.repeats):
        for name, args, env in ROWS:
            times[name].append(cold_start_ms(args, env))
    baseline = statistics.median(times[ROWS[0][0]])
    print(f"stdio cold start, spawn to the tools/list answer, median of {options.repeats}\n")
    print("| server | median ms | of the SDK's | runs (ms) |")
    print("| --- | ---: | ---: | --- |")
    for name, runs in times.items():
        median = statistics.median(runs)
        shown = ", ".join(f"{run:.0f}" for run in runs)
        print(f"| {name} | {median:,.0f} | {median / baseline:.0%} | {shown} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
