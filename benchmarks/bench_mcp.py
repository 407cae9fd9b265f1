"""Calls per second through `toolwire serve` against the SDK's `MCPServer`, same tool, same client.

Both servers serve one trivial async tool, ``add(a, b)``, and run as real subprocesses; the
official SDK `Client` calls it sequentially over the same transport (stdio, then streamable
HTTP on 127.0.0.1). toolwire's path is the full one: validation, hooks, budget, the presenter.
Each repeat is a fresh warm-up plus ``--calls`` timed calls; the table shows the medians and
toolwire's rate as a multiple of the SDK server's (target: >= 1.0x).

    python benchmarks/bench_mcp.py [--calls 300] [--repeats 5] [--transports stdio,http]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

HERE = Path(__file__).resolve()
WARMUP = 30


# -- the two servers (this file re-runs itself with --serve) --------------------------------


def serve_toolwire(transport: str, port: int) -> None:
    from toolwire import ToolRegistry, tool
    from toolwire.mcp import serve_registry

    @tool
    async def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    registry = ToolRegistry()
    registry.register(add)
    anyio.run(lambda: serve_registry(registry, transport=transport, port=port))  # type: ignore[arg-type]


def serve_sdk(transport: str, port: int) -> None:
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


# -- the client ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def wait_accepting(port: int, timeout_s: float = 30.0) -> None:
    with anyio.fail_after(timeout_s):
        while True:
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.05)
            else:
                await stream.aclose()
                return


async def measure(server: str, transport: str, calls: int) -> float:
    """Calls per second of ``calls`` sequential ``add`` calls after a warm-up."""
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    argv = [str(HERE), "--serve", server, "--transport", transport]
    process: anyio.abc.Process | None = None
    if transport == "stdio":
        target: Any = StdioServerParameters(command=sys.executable, args=argv)
    else:
        port = free_port()
        process = await anyio.open_process(
            [sys.executable, *argv, "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        await wait_accepting(port)
        target = f"http://127.0.0.1:{port}/mcp"
    try:
        with anyio.fail_after(300):
            async with Client(target) as client:
                for i in range(WARMUP):
                    await client.call_tool("add", {"a": i, "b": 1})
                started = time.perf_counter()
                for i in range(calls):
                    result = await client.call_tool("add", {"a": i, "b": 1})
                    assert not result.is_error, result
                elapsed = time.perf_counter() - started
    finally:
        if process is not None:
            process.terminate()
            with anyio.fail_after(10):
                await process.wait()
    return calls / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", choices=["toolwire", "sdk"])
    parser.add_argument("--transport", default="stdio", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--transports", default="stdio,http")
    args = parser.parse_args()
    if args.serve == "toolwire":
        serve_toolwire(args.transport, args.port)
        return 0
    if args.serve == "sdk":
        serve_sdk(args.transport, args.port)
        return 0

    os.chdir(tempfile.mkdtemp(prefix="toolwire-bench-"))
    print(f"{args.calls} sequential calls of a trivial tool, median of {args.repeats} repeats\n")
    print("| transport | SDK MCPServer (calls/s) | toolwire serve (calls/s) | toolwire / SDK |")
    print("| --- | ---: | ---: | ---: |")
    for transport in args.transports.split(","):
        rates: dict[str, list[float]] = {"sdk": [], "toolwire": []}
        for _ in range(args.repeats):
            for server in ("sdk", "toolwire"):  # interleaved, so drift hits both alike
                rates[server].append(anyio.run(measure, server, transport, args.calls))
        sdk = statistics.median(rates["sdk"])
        ours = statistics.median(rates["toolwire"])
        print(f"| {transport} | {sdk:,.0f} | {ours:,.0f} | {ours / sdk:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
