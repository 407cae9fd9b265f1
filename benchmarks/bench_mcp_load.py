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

HERE = Path(__file__).resolve()
MODERN = "2026-07-28"
LEGACY = "2025-06-18"
SERVER_CPU, WRK_CPU = "1", "0"
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
        anyio.run(lambda: serve_registry(registry, transport=transport, port=port))  # type: ignore[arg-type]
        return
    import logging

    from mcp.server.mcpserver import MCPServer

    logging.disable(logging.INFO)
    server = MCPServer("sdk-bench", log_level="WARNING")

    @server.tool()
    async def add(a: int, b: int) -> int:
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


def start_http(kind: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    argv = ["taskset", "-c", SERVER_CPU, sys.executable, str(HERE), "--serve", kind]
    process = subprocess.Popen([*argv, "--transport", "http", "--port", str(port)])
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


def wrk(url: str, revision: str, seconds: int, connections: int) -> tuple[float, float]:
    """calls/s and p99 (ms) of ``connections`` connections for ``seconds``."""
    body, headers = request_for(url, revision)
    status, _, content = post(url, body, headers)
    if status != 200 or b'"isError":false' not in content.replace(b" ", b""):
        raise RuntimeError(f"the probe call failed: {status} {content[:200]!r}")
    lines = "\n".join(
        f'wrk.headers["{k}"] = "{v}"'
        for k, v in {**headers, "accept": ACCEPT, "content-type": "application/json"}.items()
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(LUA % {"body": json.dumps(body), "headers": lines})
    argv = [
        os.environ.get("WRK", "wrk"),
        "-t1",
        f"-c{connections}",
        f"-d{seconds}s",
        "-s",
        script.name,
        url,
    ]
    out = subprocess.run(
        ["taskset", "-c", WRK_CPU, *argv], capture_output=True, text=True, check=True
    )
    os.unlink(script.name)
    fields = next(line for line in out.stdout.splitlines() if line.startswith("RESULT")).split()
    requests, duration_us, p99_us, bad = (int(f) for f in fields[1:])
    if bad:
        raise RuntimeError(f"{bad} failed requests under load:\n{out.stdout}")
    return requests / (duration_us / 1e6), p99_us / 1000


# -- cold start ------------------------------------------------------------------------------


def cold_start_ms(kind: str) -> float:
    """Spawn to the first ``tools/list`` answer over stdio."""
    lines = [
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
    payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
    argv = [
        "taskset",
        "-c",
        SERVER_CPU,
        sys.executable,
        str(HERE),
        "--serve",
        kind,
        "--transport",
        "stdio",
    ]
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(payload)
    process.stdin.flush()
    try:
        for raw in process.stdout:
            if json.loads(raw).get("id") == 2:
                return (time.perf_counter() - started) * 1000
        raise RuntimeError(f"{kind} never answered tools/list")
    finally:
        process.kill()
        process.wait()


# -- the report ------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", choices=["toolwire", "sdk"])
    parser.add_argument("--transport", default="http", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.transport, args.port)
        return 0
    if shutil.which(os.environ.get("WRK", "wrk")) is None or shutil.which("taskset") is None:
        print("skipped: wrk or taskset is missing (scripts/system-deps.sh installs wrk)")
        return 0
    os.chdir(tempfile.mkdtemp(prefix="toolwire-bench-"))
    print(f"wrk, {args.connections} connections, {args.seconds} s, median of {args.repeats}\n")
    print("| revision | SDK calls/s | toolwire calls/s | ratio | SDK p99 ms | toolwire p99 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for revision in (MODERN, LEGACY):
        figures: dict[str, list[tuple[float, float]]] = {"sdk": [], "toolwire": []}
        for kind in ("sdk", "toolwire"):
            process, url = start_http(kind)
            try:
                for _ in range(args.repeats):
                    figures[kind].append(wrk(url, revision, args.seconds, args.connections))
            finally:
                process.terminate()
                process.wait()
        sdk_rate = statistics.median(f[0] for f in figures["sdk"])
        our_rate = statistics.median(f[0] for f in figures["toolwire"])
        sdk_p99 = statistics.median(f[1] for f in figures["sdk"])
        our_p99 = statistics.median(f[1] for f in figures["toolwire"])
        print(
            f"| {revision} | {sdk_rate:,.0f} | {our_rate:,.0f} | {our_rate / sdk_rate:.2f}x "
            f"| {sdk_p99:.1f} | {our_p99:.1f} |",
            flush=True,
        )
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
