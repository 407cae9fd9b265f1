"""One background process: its live state and the thread that pumps its output.

Used by `toolwire.capabilities.kinds.process.background.ProcessManager`. The snapshot values
(`BackgroundProcess`, `WatchResult`) are the process seam's, defined with the ``process`` kind.

Every process group started is tracked here, process-wide, until it is known to be gone — not
the managers, which a program may drop without closing. `kill_live_groups` (run at interpreter
exit) kills whatever is still tracked, so a group outlives the interpreter only when the
interpreter itself is killed. A process started through a launcher with its own way of ending
it (a sandbox) is signalled through its `ProcessControl`, not as a bare group.
"""

from __future__ import annotations

import logging
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from toolwire.capabilities.kinds.process._process_logs import RotatingLog
from toolwire.capabilities.kinds.process._runner import GROUP_CONTROL, ProcessControl
from toolwire.capabilities.seams import (
    STREAMS,
    BackgroundProcess,
    LogStream,
    ProcessStatus,
    WatchResult,
)

__all__ = [
    "STREAMS",
    "BackgroundProcess",
    "LogStream",
    "ProcessStatus",
    "RunningProcess",
    "WatchResult",
    "kill_live_groups",
    "pump_output",
]

_LIVE_GROUPS: dict[int, RunningProcess] = {}
"""Every group not yet known to be gone, by process-group id (strong references: a dropped
manager's processes are still here)."""
_LIVE_LOCK = threading.Lock()

logger = logging.getLogger("toolwire.backends")


def kill_live_groups() -> None:
    """``SIGKILL`` every tracked process group at once (the interpreter-exit path)."""
    with _LIVE_LOCK:
        entries = list(_LIVE_GROUPS.values())
    for entry in entries:
        entry.stop_requested = True
        entry.signal_group(signal.SIGKILL)


class RunningProcess:
    """A running or finished process and the thread that pumps its output."""

    def __init__(
        self,
        info: BackgroundProcess,
        popen: subprocess.Popen[bytes],
        *,
        release: Callable[[], None] | None = None,
        control: ProcessControl = GROUP_CONTROL,
    ) -> None:
        self.info = info
        self.popen = popen
        self._release = release
        self._control = control
        self.lock = threading.Lock()
        self.stop_requested = False
        self.group_gone = False
        self.pump: threading.Thread | None = None
        with _LIVE_LOCK:
            _LIVE_GROUPS[info.pid] = self

    def snapshot(self) -> BackgroundProcess:
        """The current state."""
        with self.lock:
            return self.info

    def mark_ended(self, code: int) -> None:
        """Record the leader's exit (once; ``stopped`` when a stop was requested)."""
        with self.lock:
            if self.info.status != "running":
                return
            status: ProcessStatus = "stopped" if self.stop_requested else "exited"
            self.info = replace(self.info, status=status, exit_code=code, ended_at=time.time())

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the whole group (0: only look), unless it is known to be gone;
        ``SIGTERM`` and ``SIGKILL`` go through the launch's `ProcessControl`, if it has one."""
        if self.group_gone:
            return
        if self._control is not GROUP_CONTROL and sig in (signal.SIGTERM, signal.SIGKILL):
            if sig == signal.SIGTERM:
                self._control.terminate(self.info.pid)
            else:
                self._control.kill(self.info.pid)
            return
        try:
            os.killpg(self.info.pid, sig)
        except ProcessLookupError:
            self.forget_group()
        except PermissionError:
            pass

    def release(self) -> None:
        """Run the launch's ``release`` once (what a sandbox frees when its process ended)."""
        with self.lock:
            release, self._release = self._release, None
        if release is not None:
            try:
                release()
            except Exception:  # a failing release must not kill the output thread's caller
                logger.warning("toolwire: releasing a background process failed", exc_info=True)

    def forget_group(self) -> None:
        """Note that the group is gone: never signal its id again (the system may reuse it)."""
        self.group_gone = True
        with _LIVE_LOCK:
            if _LIVE_GROUPS.get(self.info.pid) is self:
                del _LIVE_GROUPS[self.info.pid]


def pump_output(entry: RunningProcess, logs: dict[LogStream, RotatingLog]) -> None:
    """Copy the process's stdout and stderr into their logs until both close (a thread body).

    Records the leader's exit as soon as it is seen, even while something it started still
    holds the pipes; afterwards notes whether anything of the group is left.
    """
    popen = entry.popen
    selector = selectors.DefaultSelector()
    for stream in STREAMS:
        pipe = getattr(popen, stream)
        selector.register(pipe, selectors.EVENT_READ, stream)
    try:
        while selector.get_map():
            for key, _ in selector.select(timeout=0.2):
                data = os.read(key.fd, 65536)
                if data:
                    logs[key.data].write(data)
                else:
                    selector.unregister(key.fileobj)
            code = popen.poll()
            if code is not None:
                entry.mark_ended(code)
        entry.mark_ended(popen.wait())
    finally:
        selector.close()
        for stream in STREAMS:
            getattr(popen, stream).close()
            logs[stream].close()
        entry.signal_group(0)  # anything of the group left? if not, it is forgotten
        entry.release()
