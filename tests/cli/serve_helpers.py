"""``toolwire serve`` as a real process, and what the tests check about the processes it starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import anyio

START_TIMEOUT_S = 30.0
WAIT_S = 15.0
"""How long a test waits for a process to start, stop or disappear before failing."""


@dataclass
class Served:
    """A ``toolwire serve`` process; ``url`` is set for ``--http``."""

    process: subprocess.Popen[bytes]
    log: Path
    url: str | None = None

    def output(self) -> str:
        """What the server printed on stderr so far."""
        return self.log.read_text(errors="replace")


def make_project(directory: Path, config: str = "") -> Path:
    """A working directory with a ``toolwire.toml`` on the in-memory store (plus ``config``)."""
    (directory / "toolwire.toml").write_text('[store]\nurl = "memory://"\n\n' + config)
    return directory


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve_http(project: Path) -> Served:
    """``python -m toolwire serve --http 127.0.0.1:<free port>`` in ``project``, once it answers."""
    log = project / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "toolwire", "serve", "--http", f"127.0.0.1:{free_port()}"],
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=_env(),
        )
    served = Served(process=process, log=log)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        text = served.output()
        if "streamable HTTP at " in text and "tool     " in text:
            served.url = text.split("streamable HTTP at ", 1)[1].split()[0]
            return served
        time.sleep(0.05)
    stop(process)
    raise AssertionError(f"toolwire serve did not start:\n{served.output()}")


def serve_stdio(project: Path) -> Served:
    """``python -m toolwire serve --stdio`` in ``project``, with pipes for stdin and stdout."""
    log = project / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "toolwire", "serve", "--stdio"],
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=sink,
            env=_env(),
        )
    return Served(process=process, log=log)


def _env() -> dict[str, str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("TOOLWIRE_CONFIG", None)
    return env


def stop(process: subprocess.Popen[bytes]) -> None:
    """Kill a process the test started, if it still runs."""
    if process.poll() is None:
        process.kill()
        process.wait(WAIT_S)


async def exit_code(process: subprocess.Popen[bytes], within_s: float = WAIT_S) -> int:
    """The process's exit code; fails when it is still running after ``within_s``."""
    with anyio.move_on_after(within_s):
        while process.poll() is None:
            await anyio.sleep(0.05)
    if process.poll() is None:
        stop(process)
        raise AssertionError(f"pid {process.pid} still runs {within_s} s later")
    return process.returncode


def group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` still runs (zombies waiting for a reaper don't)."""
    proc = Path("/proc")
    if not proc.is_dir():  # no procfs: a zombie counts as alive here
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False


async def wait_group_gone(pgid: int, within_s: float = WAIT_S) -> None:
    """Wait until no process of group ``pgid`` runs; fail after ``within_s``."""
    with anyio.move_on_after(within_s):
        while group_alive(pgid):
            await anyio.sleep(0.05)
    if group_alive(pgid):
        os.killpg(pgid, signal.SIGKILL)
        raise AssertionError(f"process group {pgid} still runs {within_s} s later")


async def read_pid(path: Path, within_s: float = WAIT_S) -> int:
    """The pid a child wrote to ``path`` (``echo $$ > path``), once it has."""
    file = anyio.Path(path)
    with anyio.fail_after(within_s):
        while True:
            text = await file.read_text() if await file.exists() else ""
            if text.endswith("\n"):
                return int(text)
            await anyio.sleep(0.02)


def host_group(reported: int, cwd: Path) -> int | None:
    """The host process group of the process that reported pid ``reported`` from ``cwd``.

    A sandboxed command has a pid namespace of its own: ``$$`` is its pid there, not the
    host's. ``NSpid`` (its pid in every namespace, the innermost last) and its working
    directory find it from outside; an unsandboxed command is found the same way.
    """
    wanted = str(cwd.resolve())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            here = os.readlink(entry / "cwd")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        nspids = next(
            (line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), []
        )
        if nspids and int(nspids[-1]) == reported and here == wanted:
            return int(stat.rsplit(")", 1)[1].split()[2])
    return None


async def read_host_group(path: Path, cwd: Path, within_s: float = WAIT_S) -> int:
    """The host process group of the child that wrote its pid to ``path`` from ``cwd``."""
    reported = await read_pid(path, within_s)
    group = host_group(reported, cwd)
    assert group is not None, f"no process reported pid {reported} from {cwd}"
    return group
