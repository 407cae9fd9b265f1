"""SIGTERM and SIGINT stop ``toolwire serve`` cleanly: the registry closes (background process
groups killed, stores closed), the exit code is 0, one line says so."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from serve_helpers import (
    WAIT_S,
    Served,
    exit_code,
    group_alive,
    serve_stdio,
    stop,
    wait_group_gone,
)

pytestmark = pytest.mark.anyio

SIGNALS = [pytest.param(signal.SIGTERM, id="SIGTERM"), pytest.param(signal.SIGINT, id="SIGINT")]
STOP_WITHIN_S = 10.0
"""The liveness bound for a stop ("a few seconds", with room for a loaded machine)."""


@pytest.fixture
def stdio_server(serve_project: Path) -> Iterator[Served]:
    served = serve_stdio(serve_project)
    yield served
    stop(served.process)


def _stop_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("toolwire stopped")]


@pytest.mark.parametrize("sig", SIGNALS)
async def test_a_signal_over_http_kills_background_processes_and_exits_0(
    http_server: Served, sig: signal.Signals, process_groups: list[int]
) -> None:
    assert http_server.url is not None
    with anyio.fail_after(WAIT_S + STOP_WITHIN_S):
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(Client(http_server.url))
            started = await client.call_tool("process_start", {"command": "sleep 300"})
            assert started.structured_content is not None, started
            pgid = int(started.structured_content["pid"])
            process_groups.append(pgid)
            assert group_alive(pgid)
            os.kill(http_server.process.pid, sig)  # the client is still connected
            code = await exit_code(http_server.process, STOP_WITHIN_S)
            stack.push_async_exit(_ignore_errors)  # the client may complain about the lost server
    assert code == 0, http_server.output()
    assert _stop_lines(http_server.output()) == [f"toolwire stopped on {sig.name}"]
    await wait_group_gone(pgid)  # killed by the server: a leftover would sleep 300 s


@pytest.mark.parametrize("sig", SIGNALS)
async def test_a_signal_over_stdio_kills_background_processes_and_exits_0(
    stdio_server: Served, sig: signal.Signals, process_groups: list[int]
) -> None:
    process = stdio_server.process
    await _request(process, "initialize", _INITIALIZE, 1)
    await _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = {"name": "process_start", "arguments": {"command": "sleep 300"}}
    answer = await _request(process, "tools/call", call, 2)
    pgid = int(answer["result"]["structuredContent"]["pid"])
    process_groups.append(pgid)
    assert group_alive(pgid)
    os.kill(process.pid, sig)  # stdin stays open: the client has not gone away
    code = await exit_code(process, STOP_WITHIN_S)
    assert code == 0, stdio_server.output()
    assert _stop_lines(stdio_server.output()) == [f"toolwire stopped on {sig.name}"]
    await wait_group_gone(pgid)


_INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "signal-test", "version": "1"},
}


async def _send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


async def _request(
    process: subprocess.Popen[bytes], method: str, params: dict[str, Any], request_id: int
) -> dict[str, Any]:
    await _send(process, {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    assert process.stdout is not None
    stdout = process.stdout
    with anyio.fail_after(WAIT_S):
        while True:
            line = await anyio.to_thread.run_sync(stdout.readline, abandon_on_cancel=True)
            if not line:
                raise AssertionError("the server closed stdout")
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == request_id:
                return message


async def _ignore_errors(*exc_info: object) -> bool:
    return True
