"""A client that goes away takes its calls with it: a dropped HTTP connection or a closed stdin
aborts the call, and the terminal tool kills the command's process group (its sandbox, where
bubblewrap runs: the pid the command reports is its own namespace's, mapped to the host's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from serve_helpers import (
    Served,
    group_alive,
    read_host_group,
    stop,
    wait_group_gone,
)

pytestmark = pytest.mark.anyio

LONG_CALL = Path(__file__).parent / "clients" / "long_call.py"
GONE_WITHIN_S = 10.0
"""The liveness bound for the command to be killed ("a few seconds", on a loaded machine)."""


def _start_client(mode: str, target: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(LONG_CALL), mode, target],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_dropped_http_client_kills_its_terminal_command(
    http_server: Served, serve_project: Path, mode: str, process_groups: list[int]
) -> None:
    assert http_server.url is not None
    client = _start_client(mode, http_server.url)
    try:
        pgid = await read_host_group(serve_project / "child.pid", serve_project)
        process_groups.append(pgid)
        assert group_alive(pgid)
        client.kill()  # the connection drops; no MCP cancellation is sent
    finally:
        stop(client)
    await wait_group_gone(pgid, GONE_WITHIN_S)
    assert http_server.process.poll() is None  # the server itself keeps serving


async def test_a_stdio_client_that_goes_away_kills_its_terminal_command(
    serve_project: Path, process_groups: list[int]
) -> None:
    client = _start_client("auto", str(serve_project))
    try:
        pgid = await read_host_group(serve_project / "child.pid", serve_project)
        process_groups.append(pgid)
        assert group_alive(pgid)
        client.kill()  # the server's stdin closes
    finally:
        stop(client)
    await wait_group_gone(pgid, GONE_WITHIN_S)
