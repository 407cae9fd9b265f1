"""Stopping the server subprocesses tests start: SIGTERM, then SIGKILL if it lingers.

Its own module beside `service_checks`, importable from every test folder.
"""

from __future__ import annotations

import subprocess

__all__ = ["stop_process"]


def stop_process(process: subprocess.Popen[bytes] | None, timeout_s: float = 5.0) -> None:
    """Terminate ``process`` if it runs, and kill it if it has not ended ``timeout_s`` later."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout_s)
