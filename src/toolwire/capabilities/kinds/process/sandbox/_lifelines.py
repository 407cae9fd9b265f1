"""`Lifeline`: how a sandbox is ended — by toolwire on purpose, or by toolwire's death.

Each sandbox gets a pipe. toolwire keeps the write end (close-on-exec, so no other child holds it)
and never writes to it; the sandbox's launcher
(`toolwire.capabilities.kinds.process.sandbox._launch`, outside the sandbox, where no sandboxed
process can see it) has a watcher blocked reading the other end. The read returns end-of-file when
the last write end closes: when toolwire closes it (`kill`), and when toolwire dies, however it dies
(the kernel closes a dead process's descriptors). The watcher then ends the sandbox: it freezes the
launcher and bubblewrap (``SIGSTOP``, waiting until they are stopped: neither starts anything more),
``SIGKILL``s the sandbox's pid 1 (the kernel then kills every process of its pid namespace: nothing
leaves a pid namespace), then bubblewrap and the launcher; killing them first would let bubblewrap's
``--die-with-parent`` orphan a sandbox it had not yet armed. There is no window: a toolwire that
died before the watcher began to read left the pipe at end of file already. The watcher is started
before the launcher joins the sandbox's cgroup and sets its limits, so a fork loop at ``pids.max``
cannot keep it from forking ``sed`` to read ``/proc``.

`terminate` is the polite half: ``SIGTERM`` to every process inside the sandbox (found from
the host through ``/proc``: the descendants of bubblewrap), so a command's ``trap ... TERM``
runs; its pid 1 (bubblewrap's) is not concerned. `Lifeline` is the `ProcessControl` the
sandbox backend hands `run_process` and the `ProcessManager`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import threading

__all__ = ["WATCHER", "Lifeline", "sandbox_processes"]

WATCHER = (
    # the launcher's watcher, in the background of /bin/sh; $$ is the launcher, 3 the lifeline
    "{ exec >/dev/null 2>&1; trap '' HUP INT; "
    "while read -r _; do :; done <&3; "  # end of file: toolwire closed it, or died
    "read -r me l </proc/self/stat; l=${l##*) }; set -- $l; "
    '[ "$2" = $$ ] || exit 0; '  # the launcher is gone: nothing is left to end
    # stop PID: SIGSTOP, and wait (about a second at most) until it is stopped or gone: only
    # then can it have no child on the way (a fork under way when the signal came completes).
    # sed reads /proc at once (the shell's read takes a byte, and a regeneration, at a time),
    # under timeout where there is one: a read of a process being created was seen to hang
    "t=; command -v timeout >/dev/null && t='timeout 2'; "
    "stop() { kill -STOP $1 || return 0; n=0; while [ $n -lt 100 ]; do "
    "case $(sed -n 's/^State:[[:space:]]*//p' /proc/$1/status) in [TtZX]*|'') return 0;; "
    "esac; n=$((n + 1)); [ $n -lt 5 ] || sleep 0.01; done; }; "
    # kids PID: $k, its children; group PGID: $k, the processes of that process group
    'kids() { k=$($t sed -n "s/^\\([0-9]*\\) (.*) . $1 .*/\\1/p" /proc/[0-9]*/stat); }; '
    'group() { k=$($t sed -n "s/^\\([0-9]*\\) (.*) . [0-9]* $1 .*/\\1/p" /proc/[0-9]*/stat); }; '
    # the launcher is frozen, not killed, until the end: bubblewrap dies with it
    # (--die-with-parent), and so would leave a sandbox it has not yet armed the same way. Its
    # process group holds bubblewrap and, until it calls setsid, the sandbox's pid 1
    'stop $$; group $$; g=; for c in $k; do case $c in $$ | $me) ;; *) g="$g $c" ;; esac; done; '
    'for c in $g; do stop $c; done; for c in $g; do kids $c; [ -z "$k" ] || kill -KILL $k; done; '
    '[ -z "$g" ] || kill -KILL $g; kill -KILL $$; } &'
)
"""The launcher's watcher (see the module docstring): its stdio closed, hang-ups ignored, it
waits for end of file on the lifeline, then freezes the launcher and the other processes of its
process group (bubblewrap), kills their children (the sandbox's pid 1), then them, then the
launcher."""


class Lifeline:
    """One sandbox's lifeline (see the module docstring); a `ProcessControl`."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()  # both close-on-exec (PEP 446)
        self._lock = threading.Lock()

    @property
    def stdin(self) -> int:
        """The read end: the launcher's standard input, which its watcher reads."""
        return self._read

    def terminate(self, pid: int) -> None:
        """``SIGTERM`` to every process inside the sandbox the launcher ``pid`` started."""
        for target in sandbox_processes(pid):
            _signal(target, signal.SIGTERM)

    def kill(self, pid: int) -> None:
        """End the sandbox now: close toolwire's end; the watcher kills all of it."""
        with self._lock:
            write, self._write = self._write, -1
        if write >= 0:
            os.close(write)

    def close(self) -> None:
        """Close both ends (once the sandbox has ended)."""
        self.kill(0)
        with self._lock:
            read, self._read = self._read, -1
        if read >= 0:
            os.close(read)


def _parents() -> dict[int, int]:
    """Every process's parent, read from ``/proc``."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = _parent(int(entry))
            if parent is not None:
                found[int(entry)] = parent
    return found


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def sandbox_processes(launcher: int) -> list[tuple[int, int]]:
    """``(pid, parent)`` of the processes inside the sandbox the launcher ``launcher``
    started: the descendants of its children (bubblewrap, and the watcher, which has none)."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found: list[tuple[int, int]] = []
    level = [(pid, own) for own in children.get(launcher, ()) for pid in children.get(own, ())]
    while level:
        found += level
        level = [(child, pid) for pid, _ in level for child in children.get(pid, ())]
    return found


def _signal(target: tuple[int, int], sig: int) -> None:
    """``sig`` to ``target`` (pid, parent) if that pid still has that parent (not reused)."""
    pid, parent = target
    try:
        handle = os.pidfd_open(pid)  # holds this process: its pid cannot be reused meanwhile
    except OSError as exc:
        if exc.errno == errno.ENOSYS and _parent(pid) == parent:  # Linux < 5.3
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        return
    try:
        if _parent(pid) == parent:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(handle, sig)
    finally:
        os.close(handle)
