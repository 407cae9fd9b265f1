"""Real MCP servers for the tests: subprocesses over stdio and over HTTP on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from subprocesses import stop_process
from toolwire.mcp import McpServerConfig

SERVERS = Path(__file__).parent / "servers"
REGISTRY_SERVER = SERVERS / "registry_server.py"
SDK_SERVER = SERVERS / "sdk_server.py"
START_TIMEOUT_S = 20.0
WAIT_S = 15.0
"""How long a test waits for a connection, a call or an event before failing."""


def stdio_config(name: str, script: Path, markers: Path, **options: object) -> McpServerConfig:
    """``script`` over stdio, writing its abort markers to ``markers``."""
    return McpServerConfig(
        name=name,
        command=sys.executable,
        args=(str(script), "stdio"),
        env={"TOOLWIRE_TEST_MARKERS": str(markers)},
        connect_timeout_s=WAIT_S,
        **options,  # type: ignore[arg-type]
    )


def never_starts(name: str = "missing", connect_timeout_s: float = 2.0) -> McpServerConfig:
    """A stdio server whose process exits at once, so it never connects."""
    return McpServerConfig(
        name=name,
        command=sys.executable,
        args=("-c", "raise SystemExit(1)"),
        connect_timeout_s=connect_timeout_s,
    )


async def wait_until(predicate: Callable[[], object], what: str) -> None:
    """Poll ``predicate`` until it is true; fail after `WAIT_S` naming ``what``."""
    with anyio.fail_after(WAIT_S):
        while not predicate():
            await anyio.sleep(0.02)


@dataclass
class HttpServer:
    """A server subprocess listening on 127.0.0.1."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path


def start_http_server(
    script: Path, tmp_path: Path, env: dict[str, str] | None = None, name: str = "server"
) -> HttpServer:
    """Start ``script http`` and wait for its ``READY <url>`` line (bounded)."""
    log = tmp_path / f"{name}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, str(script), "http"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
            env={**os.environ, **(env or {})},
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("READY "):
                url = line.split(" ", 1)[1].strip()
                _wait_until_accepting(url, deadline)
                return HttpServer(url=url, process=process, log=log)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    process.wait(5)
    raise AssertionError(f"{script.name} did not start:\n{log.read_text(errors='replace')}")


def _wait_until_accepting(url: str, deadline: float) -> None:
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing accepts connections at {url}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate a server subprocess (kill after 5 s)."""
    stop_process(process)
