"""Helpers for tests with real child processes: is a pid alive, the pids a script recorded."""

from __future__ import annotations

import os
from pathlib import Path

import anyio


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


async def all_dead(pids: list[int]) -> bool:
    """Whether every pid is gone; waits (boundedly) for the kernel to finish delivering kills."""
    with anyio.move_on_after(10):
        while any(alive(pid) for pid in pids):
            await anyio.sleep(0.02)
    return not any(alive(pid) for pid in pids)


def pids_in(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


async def read_pids(path: Path, count: int) -> list[int]:
    with anyio.fail_after(10):
        while len(pids := pids_in(path)) < count:
            await anyio.sleep(0.02)
        return pids
