"""One background process: its live state and the thread that pumps its output.

Used by `toolwire.backends.background.ProcessManager`. The snapshot values (`BackgroundProcess`,
`WatchResult`) are the process seam's, defined with the ``process`` kind.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time
from dataclasses import replace

from toolwire.backends.process_logs import RotatingLog
from toolwire.seams import STREAMS, BackgroundProcess, LogStream, ProcessStatus, WatchResult

__all__ = [
    "STREAMS",
    "BackgroundProcess",
    "LogStream",
    "ProcessStatus",
    "RunningProcess",
    "WatchResult",
    "pump_output",
]


class RunningProcess:
    """A running or finished process and the thread that pumps its output."""

    def __init__(self, info: BackgroundProcess, popen: subprocess.Popen[bytes]) -> None:
        self.info = info
        self.popen = popen
        self.lock = threading.Lock()
        self.stop_requested = False
        self.group_gone = False
        self.pump: threading.Thread | None = None

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
        """Send ``sig`` to the whole group, unless the group is known to be gone."""
        if self.group_gone:
            return
        try:
            os.killpg(self.info.pid, sig)
        except ProcessLookupError:
            self.group_gone = True
        except PermissionError:
            pass


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
    try:
        os.killpg(entry.info.pid, 0)
    except ProcessLookupError:
        entry.group_gone = True  # never signal this pgid again: the number may be reused
    except PermissionError:
        pass
