"""Every sandbox ends with the process that owns it, however that process ends: the survivor
checks. The owner is a real process (`sandbox_owner`) killed with ``SIGKILL`` at every moment of
a sandbox's start, or stopping processes while their sandboxes are still being built."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from sandbox_helpers import bwrap, marker  # noqa: F401  (a fixture)

from subprocesses import running_with, stop_process

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap")]

OWNER = str(Path(__file__).with_name("sandbox_owner.py"))
DELAYS_MS = (0, 5, 10, 15, 20, 25, 30, 40, 50)
"""When the owner is killed, after it began to start the sandbox: before bubblewrap runs, while
it builds the sandbox, as the command starts, after."""
TRIES = 2
SETTLE_S = 60.0
"""How long what is left of a sandbox may take to end once its owner is dead: usually well under
a second; on a loaded VM a launcher caught joining its cgroup v1 group sat in the kernel for
seconds (an RCU grace period). A survivor runs for 300 s."""


def owner(mode: str, tag: str, logs: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, OWNER, mode, tag, str(logs)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)},
    )


def read_word(process: subprocess.Popen[bytes]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline().decode().strip()
    if not line:
        process.wait(10)
        assert process.stderr is not None
        raise AssertionError(f"the owner ended: {process.stderr.read().decode()[-2000:]}")
    return line


def sandboxed(pids: list[int]) -> list[int]:
    """Those of ``pids`` that run inside a sandbox (another pid namespace) and can still run.

    The launcher and its watcher run outside: on a loaded machine a launcher caught joining its
    cgroup v1 group waits there, unkillable, for an RCU grace period (seconds), and its watcher
    with it, before both end; neither runs anything of the sandbox."""
    own = os.readlink("/proc/self/ns/pid")
    found = []
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as handle:
            stat = handle.read()
            inside = os.readlink(f"/proc/{pid}/ns/pid") != own
            if inside and stat[stat.rfind(")") + 2] in "RSD":
                found.append(pid)
    return found


async def ended(tag: str) -> bool:
    """Whether no sandboxed process holding ``tag`` is left once everything holding it has
    ended, or ``SETTLE_S`` has passed (a sandbox may still be starting when the owner dies)."""
    with anyio.move_on_after(SETTLE_S):
        while running_with(tag):
            await anyio.sleep(0.05)
    return not sandboxed(running_with(tag))


def kill_owner(mode: str, tag: str, logs: Path, delay_ms: int) -> None:
    """Start an owner and ``SIGKILL`` it ``delay_ms`` after it began to start a sandbox
    (blocking, for the timing's sake)."""
    process = owner(mode, tag, logs)
    try:
        assert read_word(process) == "go"
        time.sleep(delay_ms / 1000)
        process.kill()
        process.wait(10)
    finally:
        stop_process(process)


async def survivors_of_killed_owners(mode: str, tmp_path: Path) -> list[str]:
    """Kill an owner at each delay, ``TRIES`` times; the tags whose sandbox outlived it."""
    left = []
    for delay_ms in DELAYS_MS * TRIES:
        tag = marker()
        kill_owner(mode, tag, tmp_path / "procs", delay_ms)
        if not await ended(tag):
            left.append(f"{delay_ms} ms: {described(running_with(tag))}")
            for pid in running_with(tag):  # do not leave them running past the test
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
    return left


def described(pids: list[int]) -> str:
    """``pid state name`` of each process, for a failure's message."""
    found = []
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as handle:
            stat = handle.read()
            found.append(
                f"{pid} {stat[stat.rfind(')') + 2]} {stat[stat.find('(') : stat.rfind(')') + 1]}"
            )
    return ", ".join(found)


async def test_no_background_sandbox_outlives_its_killed_owner(tmp_path: Path) -> None:
    left = await survivors_of_killed_owners("start", tmp_path)
    assert not left, (
        f"{len(left)} of {len(DELAYS_MS) * TRIES} sandboxes outlived their owner: {left}"
    )


async def test_no_one_shot_sandbox_outlives_its_killed_owner(tmp_path: Path) -> None:
    left = await survivors_of_killed_owners("run", tmp_path)
    assert not left, (
        f"{len(left)} of {len(DELAYS_MS) * TRIES} sandboxes outlived their owner: {left}"
    )


async def test_processes_stopped_as_they_start_leave_nothing_after_their_owner(
    tmp_path: Path,
) -> None:
    tag = marker()
    process = owner("race", tag, tmp_path / "procs")
    code: int | None = None
    try:
        assert read_word(process) == "ready"
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = process.wait(60)
    finally:
        stop_process(process)
    survived = not await ended(tag)
    left = running_with(tag)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not survived, f"{len(left)} processes of stopped sandboxes outlived their owner"
    assert code == 0, "the owner did not close within 60 s of its SIGTERM"
