"""Throughput and tail latency of `toolwire serve` (with its fast path) against the SDK's
`MCPServer` under load, and their stdio cold start.

Both servers serve one trivial async tool, ``add(a, b)``, as real subprocesses pinned to one
core (``taskset``); ``wrk`` (Debian's) runs on the other core with 50 connections, POSTing
``tools/call`` on the stateless 2026-07-28 revision (no session) and on the handshake-era one
(in a session opened first). Every answer must be a 2xx. Cold start: spawn a stdio server and
time until its ``tools/list`` answer arrives (initialize, initialized, tools/list).

Targets (issue 15): >= 4x the SDK's calls/s stateless, >= 3x legacy, p99 < 15 ms at 50
connections, cold start <= 60% of the SDK's.

    python benchmarks/bench_mcp_load.py [--seconds 5] [--connections 50] [--repeats 3]

``WRK`` names the wrk binary (``wrk`` on PATH by default; ``scripts/system-deps.sh`` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).resolve()
MODERN = "2026-07-28"
LEGACY = "2025-06-18"
SERVER_CPU, WRK_CPU = "1", "0"
COALESCE_ENV = (
    "TOOLWIRE_MCP_HTTP_COALESCE"  # toolwire.mcp.server.fast_http.coalesce (the driver imports none)
)
_LOOP_ENV = "BENCH_MCP_LOOP"  # set for the server processes: "uvloop" (SDK) or "asyncio"
ACCEPT = "application/json, text/event-stream"
CALL = {"name": "add", "arguments": {"a": 2, "b": 3}}
LUA = """
wrk.method = "POST"
wrk.body = [==[%(body)s]==]
%(headers)s
done = function(summary, latency, requests)
  local bad = summary.errors.status + summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT %%d %%d %%d %%d\\n", summary.requests, summary.duration,
    latency:percentile(99), bad))
end
"""


# -- the servers (this file re-runs itself with --serve) -------------------------------------


def serve(kind: str, transport: str, port: int) -> None:
    if kind == "toolwire":
        import anyio

        from toolwire import ToolRegistry, tool
        from toolwire.mcp import serve_registry

        @tool
        async def add(a: int, b: int) -> str:
            """Add two integers."""
            return str(a + b)

        registry = ToolRegistry()
        registry.register(add)
        from toolwire.mcp.server.serving import event_loop_options

        kind_of: Literal["stdio", "http"] = "http" if transport == "http" else "stdio"
        loop = event_loop_options(kind_of) if os.environ.get(_LOOP_ENV) != "asyncio" else {}
        anyio.run(
            lambda: serve_registry(registry, transport=kind_of, port=port), backend_options=loop
        )
        return
    if os.environ.get(_LOOP_ENV) == "uvloop":  # the SDK's anyio.run then runs on uvloop too
        import uvloop

        uvloop.install()
    import logging

    from mcp.server.mcpserver import MCPServer

    logging.disable(logging.INFO)
    server = MCPServer("sdk-bench", log_level="WARNING")

    @server.tool(name="add")
    async def sdk_add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=port)


# -- load ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_http(
    kind: str, loop: str = "", env_extra: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start a server (``loop``: ``uvloop`` puts the SDK's on uvloop, ``asyncio`` keeps
    toolwire's off it; by default each runs on what it picks itself; ``env_extra`` is added
    to its environment)."""
    port = free_port()
    argv = ["taskset", "-c", SERVER_CPU, sys.executable, str(HERE), "--serve", kind]
    env = {**os.environ, _LOOP_ENV: loop, **(env_extra or {})}
    process = subprocess.Popen([*argv, "--transport", "http", "--port", str(port)], env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{kind} server did not start")


def post(
    url: str, body: dict[str, object], headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    import httpx

    answer = httpx.post(url, json=body, headers={"accept": ACCEPT, **headers}, timeout=30)
    return answer.status_code, dict(answer.headers), answer.content


def request_for(url: str, revision: str) -> tuple[dict[str, object], dict[str, str]]:
    """The tools/call body and headers of one revision (a legacy session is opened first)."""
    if revision == MODERN:
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {**CALL, "_meta": meta},
        }
        headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "add"}
        return body, headers
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "wrk", "version": "1"},
        },
    }
    _, answer_headers, _ = post(url, hello, {})
    headers = {"mcp-session-id": answer_headers["mcp-session-id"], "mcp-protocol-version": LEGACY}
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": CALL}, headers


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time process ``pid`` has used (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk_script(body: dict[str, Any], headers: dict[str, str]) -> str:
    """A Lua script for ``wrk`` that POSTs ``body`` with ``headers`` (its path; the caller
    removes it)."""
    lines = "\n".join(
        f'wrk.headers["{k}"] = "{v}"'
        for k, v in {**headers, "accept": ACCEPT, "content-type": "application/json"}.items()
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(LUA % {"body": json.dumps(body), "headers": lines})
    return script.name


def wrk_argv(script: str, url: str, seconds: int, connections: int) -> list[str]:
    """One ``wrk`` thread, ``connections`` connections, a 10 s timeout (a slow answer is
    counted in the p99, not dropped)."""
    timing = ["--timeout", "10s", f"-c{connections}", f"-d{seconds}s"]
    return [os.environ.get("WRK", "wrk"), "-t1", *timing, "-s", script, url]


def wrk_result(stdout: str) -> tuple[int, int, int]:
    """Requests, duration (µs) and p99 (µs) from the script's ``RESULT`` line.

    Raises:
        RuntimeError: some answers were not 2xx, or timed out.
    """
    fields = next(line for line in stdout.splitlines() if line.startswith("RESULT")).split()
    requests, duration_us, p99_us, bad = (int(f) for f in fields[1:])
    if bad:
        raise RuntimeError(f"{bad} failed requests under load:\n{stdout}")
    return requests, duration_us, p99_us


def wrk(
    url: str, revision: str, seconds: int, connections: int, pid: int
) -> tuple[float, float, float]:
    """calls/s, p99 (ms) and the server's CPU µs per call, of ``connections`` connections
    for ``seconds`` (the CPU time is the steadier figure on a shared machine)."""
    body, headers = request_for(url, revision)
    status, _, content = post(url, body, headers)
    if status != 200 or b'"isError":false' not in content.replace(b" ", b""):
        raise RuntimeError(f"the probe call failed: {status} {content[:200]!r}")
    script = wrk_script(body, headers)
    used = cpu_seconds(pid)
    out = subprocess.run(
        ["taskset", "-c", WRK_CPU, *wrk_argv(script, url, seconds, connections)],
        capture_output=True,
        text=True,
        check=True,
    )
    used = cpu_seconds(pid) - used
    os.unlink(script)
    requests, duration_us, p99_us = wrk_result(out.stdout)
    return requests / (duration_us / 1e6), p99_us / 1000, used * 1e6 / max(requests, 1)


# -- cold start ------------------------------------------------------------------------------


def cold_start_ms(kind: str) -> float:
    """Spawn to the first ``tools/list`` answer over stdio (`bench_stdio_cold_start`)."""
    from bench_stdio_cold_start import cold_start_ms as spawn_to_listing_ms

    return spawn_to_listing_ms([str(HERE), "--serve", kind, "--transport", "stdio"], {})


# -- the report ------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", choices=["toolwire", "sdk"])
    parser.add_argument("--transport", default="http", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--sdk-uvloop", action="store_true", help="run the SDK's server on uvloop too"
    )
    parser.add_argument(
        "--toolwire-asyncio", action="store_true", help="keep toolwire's server off uvloop"
    )
    parser.add_argument("--no-cold-start", action="store_true", help="skip the stdio cold start")
    parser.add_argument(
        "--compare-coalesce",
        action="store_true",
        help=f"also run toolwire with {COALESCE_ENV}=0 (uvicorn's two writes per answer)",
    )
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.transport, args.port)
        return 0
    if shutil.which(os.environ.get("WRK", "wrk")) is None or shutil.which("taskset") is None:
        print("skipped: wrk or taskset is missing (scripts/system-deps.sh installs wrk)")
        return 0
    os.chdir(tempfile.mkdtemp(prefix="toolwire-bench-"))
    print(f"wrk, {args.connections} connections, {args.seconds} s, median of {args.repeats}\n")
    sdk_loop = "uvloop" if args.sdk_uvloop else ""
    our_loop = "asyncio" if args.toolwire_asyncio else ""
    kinds = {"sdk": ("sdk", sdk_loop, {}), "toolwire": ("toolwire", our_loop, {})}
    if args.compare_coalesce:
        kinds["toolwire, 2 writes"] = ("toolwire", our_loop, {COALESCE_ENV: "0"})
    print("| revision | server | calls/s | ratio | p99 ms | CPU µs/call | CPU ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for revision in (MODERN, LEGACY):
        figures: dict[str, list[tuple[float, float, float]]] = {kind: [] for kind in kinds}
        servers = {name: start_http(*spec) for name, spec in kinds.items()}
        try:
            for _ in range(args.repeats):  # interleaved: the machine's load drifts
                for name, (process, url) in servers.items():
                    figures[name].append(
                        wrk(url, revision, args.seconds, args.connections, process.pid)
                    )
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait()
        sdk_rate, _, sdk_cpu = (statistics.median(f[i] for f in figures["sdk"]) for i in range(3))
        for name, runs in figures.items():
            rate, p99, cpu = (statistics.median(f[i] for f in runs) for i in range(3))
            print(
                f"| {revision} | {name} | {rate:,.0f} | {rate / sdk_rate:.2f}x | {p99:.1f} "
                f"| {cpu:,.0f} | {sdk_cpu / cpu:.2f}x |",
                flush=True,
            )
    if args.no_cold_start:
        return 0
    starts = {
        kind: statistics.median(cold_start_ms(kind) for _ in range(5))
        for kind in ("sdk", "toolwire")
    }
    ratio = starts["toolwire"] / starts["sdk"]
    print(
        f"\nstdio cold start (spawn to the tools/list answer, median of 5): SDK "
        f"{starts['sdk']:.0f} ms, toolwire {starts['toolwire']:.0f} ms ({ratio:.0%} of the SDK's)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
