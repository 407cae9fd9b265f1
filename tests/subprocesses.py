"""The processes tests start: stopping them (SIGTERM, then SIGKILL if one lingers) and finding
them from outside (`running_with`).

Its own module beside `service_checks`, importable from every test folder.
"""

from __future__ import annotations

import os
import subprocess

__all__ = ["running_with", "stop_process"]


def running_with(text: str) -> list[int]:
    """Host pids of the live (not zombie) processes whose command line holds ``text``.

    A sandboxed command runs in its own pid namespace, so the pids it reports (``$!``) are not
    the host's: a unique marker in its command line finds it from outside either way.
    """
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state not in ("Z", "X"):
            found.append(int(entry))
    return found


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
