"""A process that keeps swapping a directory (or a file) with a symbolic link to an outside one.

This is the check-then-use race a model can run by itself from a sandboxed terminal: the host's
file tools look at ``root/d`` (a directory), then use it (by then a link to ``outside``). The
swapper exchanges the two names atomically (``renameat2(RENAME_EXCHANGE)``), so ``root/d`` is
always one or the other and never missing, as fast as one core allows, until it is stopped.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from subprocesses import stop_process

__all__ = ["Swaps", "created_outside", "swapping"]

_SWAPPER = r"""
import ctypes, os, sys
directory, parked, target, stop = sys.argv[1:5]
os.symlink(target, parked)
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
a, b = directory.encode(), parked.encode()
swaps = 0
print("ready", flush=True)
while swaps % 64 or not os.path.exists(stop):
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        raise OSError(ctypes.get_errno(), "renameat2(RENAME_EXCHANGE) failed")
    swaps += 1
if os.path.islink(directory):
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
print(swaps, flush=True)
"""


@dataclass(slots=True)
class Swaps:
    """How many times the swapper exchanged the directory and the link (set when it stops)."""

    count: int = 0


@contextmanager
def swapping(directory: Path, parked: Path, target: Path) -> Iterator[Swaps]:
    """Keep exchanging ``directory`` (a directory or a file) with a link at ``parked`` pointing
    to ``target``.

    ``parked`` must be on the same file system as ``directory``; on exit the directory is back
    in its place and `Swaps.count` says how many exchanges were made.
    """
    stop = parked.with_name(parked.name + ".stop")
    process = subprocess.Popen(
        [sys.executable, "-c", _SWAPPER, str(directory), str(parked), str(target), str(stop)],
        stdout=subprocess.PIPE,
    )
    swaps = Swaps()
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == b"ready"
        yield swaps
        stop.touch()
        swaps.count = int(process.stdout.readline().strip() or b"0")
        process.wait(timeout=30)
    finally:
        stop_process(process)
    assert not directory.is_symlink(), "the swapper left the link in place"
    assert directory.exists()


def created_outside(
    outside: Path, before: tuple[str, ...] = ("canary.txt", "only-outside.txt")
) -> list[str]:
    """The names in ``outside`` that were not there before (files and temporary files alike)."""
    return sorted(entry.name for entry in outside.iterdir() if entry.name not in before)
