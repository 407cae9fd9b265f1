"""``toolwire serve --reload``: the server runs in a child process, restarted whenever a watched
file changes (the config file, your tool modules and the ``.py`` files beside them). For
development: a restart drops the HTTP sessions (clients connect again) and whatever the tools
kept in memory.

The files are polled (their modification time and size, every half second), so it needs no
file-watching library and sees changes on any file system. A burst of writes (an editor saving
in several steps) restarts the server once, after the files stop changing. A child that exits
by itself (a syntax error in a tool module) is reported, and started again at the next change.
SIGTERM and SIGINT stop the child (SIGTERM, then SIGKILL after 10 s) and then the watcher; on
Linux the child also gets SIGTERM if the watcher dies without that chance.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

__all__ = ["POLL_S", "run_reloading"]

POLL_S = 0.5
"""How often the watched files are looked at, in seconds."""
_STOP_WAIT_S = 10.0
Snapshot = dict[Path, tuple[int, int]]


def run_reloading(
    argv: Sequence[str], watched: Callable[[], Sequence[Path]], say: Callable[[str], None]
) -> str | None:
    """Run ``argv`` until SIGTERM or SIGINT, restarting it when a file of ``watched()`` (asked
    again at every poll) changes; the name of the signal that stopped it, if one did."""
    received: list[str] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        received.append(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        seen = _snapshot(watched())
        child = _start(argv)
        reported = False
        while not received:
            time.sleep(POLL_S)
            now = _snapshot(watched())
            if now != seen:
                now = _settled(now, watched, received)
                changed = sorted(
                    str(p) for p in now.keys() | seen.keys() if now.get(p) != seen.get(p)
                )
                seen = now
                if received:
                    break
                say(f"toolwire reloading: {', '.join(_names(changed))} changed")
                _stop(child)
                child, reported = _start(argv), False
            elif child.poll() is not None and not reported:
                say(
                    f"toolwire: the server exited with code {child.returncode}; it starts again "
                    "when a watched file changes"
                )
                reported = True
        _stop(child)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return received[0] if received else None


def _settled(now: Snapshot, watched: Callable[[], Sequence[Path]], stop: list[str]) -> Snapshot:
    """The files once two looks in a row agree (an editor may save in several writes)."""
    while not stop:
        time.sleep(POLL_S / 2)
        again = _snapshot(watched())
        if again == now:
            return now
        now = again
    return now


def _snapshot(files: Sequence[Path]) -> Snapshot:
    found: Snapshot = {}
    for file in files:
        try:
            stat = file.stat()
        except OSError:
            found[file] = (-1, -1)  # missing: its appearance is a change too
            continue
        found[file] = (stat.st_mtime_ns, stat.st_size)
    return found


def _names(paths: list[str]) -> list[str]:
    cwd = Path.cwd()
    shown = []
    for path in paths:
        with contextlib.suppress(ValueError):
            path = str(Path(path).relative_to(cwd))
        shown.append(path)
    return shown


def _start(argv: Sequence[str]) -> subprocess.Popen[bytes]:
    # preexec_fn is safe here: the watcher has no other thread that could hold a lock
    return subprocess.Popen(list(argv), preexec_fn=_die_with_parent)


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the watcher dies (Linux's PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


def _stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(_STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
