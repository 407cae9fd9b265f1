"""`ProcessManager`: background processes that outlive one tool call, with logs on disk.

Each process runs ``bash -c <command>`` with the same rules as
`toolwire.capabilities.kinds.process._runner`: a scrubbed environment (`scrubbed_env`), stdin
closed, its own session and process group. What differs is the lifetime: the process keeps running
after the call that started it, until it exits, is stopped, or the manager closes.

- **Cap**: at most ``max_per_owner`` (8) *running* processes per owner (a personality id);
  one more raises `CapabilityError` (``PROCESS_CAP_EXCEEDED: ...``).
- **Logs**: stdout and stderr go to ``<base_dir>/<id>/stdout.log`` and ``stderr.log``; a file
  that reaches ``log_max_bytes`` is rotated (``.1`` is the newest old generation) and at most
  ``log_backups`` old generations are kept.
- **Stop**: ``SIGTERM`` to the whole group, then ``SIGKILL`` after ``stop_grace_s`` (5 s);
  whatever the group still holds is killed even when the leader exits on ``SIGTERM``.
- **Close**: `aclose` stops every group it started (children and grandchildren included), so
  nothing is left behind. Groups still running when the interpreter exits are killed too, even
  when their manager was dropped without closing and collected: the groups themselves are
  tracked until they are gone, not the managers.

A process is owned by the owner that started it: the others cannot see, read or stop it.
With replicas (`ProcessManager.replica`), its id also names the replica it runs on
(``3f9c0a1b2d4e@api-1``), and an id of another replica raises
`toolwire.replicas.ElsewhereError` (a `LookupError`) saying whose it is and whether that
replica is alive.
Tools reach the manager only through the process seam (``ctx.scoped_process.background``),
which binds the owner to the call's personality; `LocalProcessBackend` holds the manager.
Output is pumped by one thread per process, so the manager does not belong to any event loop
or task group and may be closed from anywhere. POSIX only.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from toolwire.capabilities.kinds.process._background_process import (
    STREAMS,
    BackgroundProcess,
    LogStream,
    ProcessStatus,
    RunningProcess,
    WatchResult,
    kill_live_groups,
    pump_output,
)
from toolwire.capabilities.kinds.process._log_watch import watch_logs
from toolwire.capabilities.kinds.process._process_logs import RotatingLog, tail_generations
from toolwire.capabilities.kinds.process._runner import GROUP_CONTROL, ProcessControl, scrubbed_env
from toolwire.errors import CapabilityError, ConfigurationError

if TYPE_CHECKING:
    from toolwire.replicas.owners import ResourceOwner

__all__ = [
    "DEFAULT_MAX_PER_OWNER",
    "BackgroundProcess",
    "Launch",
    "LogStream",
    "ProcessManager",
    "ProcessStatus",
    "WatchResult",
]

DEFAULT_MAX_PER_OWNER = 8
"""Running processes one owner may have at once."""

_POLL_S = 0.05


atexit.register(kill_live_groups)


@dataclass(frozen=True, kw_only=True, slots=True)
class Launch:
    """How a backend wraps a background command (a sandbox's launcher around ``bash -c``).

    Attributes:
        argv: What is started instead of ``bash -c <command>`` (it runs the command itself).
        env: Its whole environment, used as is.
        release: Called once, from the output thread, when the process has ended and its
            output is read (the sandbox frees its cgroup and its egress listener); the manager
            owns it once `ProcessManager.start` returns.
        control: How the process is stopped and killed, and its standard input (a sandbox's
            lifeline); its process group and ``/dev/null`` by default.
    """

    argv: tuple[str, ...]
    env: Mapping[str, str]
    release: Callable[[], None] | None = None
    control: ProcessControl = GROUP_CONTROL


class ProcessManager:
    """Starts, lists, reads, watches and stops background processes; see the module docstring.

    Use one per application and close it: ``async with ProcessManager(base_dir) as manager:``.

    Args:
        base_dir: Where each process's log directory is created.
        max_per_owner: Running processes one owner may have (default 8).
        log_max_bytes: Size at which a log file is rotated (default 10 MiB).
        log_backups: Old log generations kept per stream (default 5).
        stop_grace_s: Seconds between ``SIGTERM`` and ``SIGKILL`` when stopping (default 5).
        env_allowlist: Host variables (names or ``fnmatch`` patterns) passed on beyond the
            safe set.
        replica: The replica this manager runs on, named in every id it hands out (``None``:
            one server, plain ids). Settable until the first process starts.

    Raises:
        ConfigurationError: a relative ``base_dir`` or a non-positive limit.
    """

    def __init__(
        self,
        base_dir: str,
        *,
        max_per_owner: int = DEFAULT_MAX_PER_OWNER,
        log_max_bytes: int = 10 * 1024 * 1024,
        log_backups: int = 5,
        stop_grace_s: float = 5.0,
        env_allowlist: Sequence[str] = (),
        replica: ResourceOwner | None = None,
    ) -> None:
        if not os.path.isabs(base_dir):
            raise ConfigurationError(f"ProcessManager(base_dir={base_dir!r}) must be absolute")
        if max_per_owner < 1 or log_max_bytes < 1 or log_backups < 0 or stop_grace_s < 0:
            raise ConfigurationError(
                "ProcessManager: max_per_owner and log_max_bytes must be >= 1, log_backups and "
                "stop_grace_s >= 0"
            )
        self.base_dir = base_dir
        self.max_per_owner = max_per_owner
        self.log_max_bytes = log_max_bytes
        self.log_backups = log_backups
        self.stop_grace_s = stop_grace_s
        self._env_allowlist = tuple(env_allowlist)
        self.replica = replica
        self._entries: dict[str, RunningProcess] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._spawner: ThreadPoolExecutor | None = None

    @property
    def closed(self) -> bool:
        """Whether `aclose` has been called."""
        return self._closed

    async def start(
        self,
        command: str,
        *,
        owner: str,
        cwd: str,
        env: Mapping[str, str] | None = None,
        name: str | None = None,
        launch: Launch | None = None,
    ) -> BackgroundProcess:
        """Start ``bash -c command`` in the background (or ``launch.argv``, which runs it).

        The process is started by the manager's own thread, which lives as long as the
        manager: a child that asks to die with its parent (bubblewrap's ``--die-with-parent``)
        is not killed when a short-lived worker thread ends.

        Raises:
            CapabilityError: ``PROCESS_CAP_EXCEEDED: ...`` when ``owner`` is at the cap, or the
                manager is closed.
            OSError: the process could not be started (``cwd`` missing, no bash).
        """
        with self._lock:
            if self._spawner is None:
                self._spawner = ThreadPoolExecutor(1, thread_name_prefix="toolwire-spawn")
            spawner = self._spawner
        try:
            job = spawner.submit(self._start, command, owner, cwd, env, name, launch)
        except RuntimeError:  # shut down by aclose meanwhile
            raise CapabilityError("PROCESS_MANAGER_CLOSED: the process manager is closed") from None
        return await anyio.to_thread.run_sync(job.result)

    def _start(
        self,
        command: str,
        owner: str,
        cwd: str,
        env: Mapping[str, str] | None,
        name: str | None,
        launch: Launch | None = None,
    ) -> BackgroundProcess:
        with self._lock:
            if self._closed:
                raise CapabilityError("PROCESS_MANAGER_CLOSED: the process manager is closed")
            running = sum(
                1
                for e in self._entries.values()
                if e.info.owner == owner and e.snapshot().status == "running"
            )
            if running >= self.max_per_owner:
                raise CapabilityError(
                    f"PROCESS_CAP_EXCEEDED: max {self.max_per_owner} concurrent processes per "
                    "personality; stop one with process_stop first"
                )
            local_id = uuid.uuid4().hex[:12]
            log_dir = os.path.join(self.base_dir, local_id)
            process_id = local_id if self.replica is None else self.replica.name(local_id)
            os.makedirs(log_dir, mode=0o700, exist_ok=True)
            logs = {
                s: RotatingLog(
                    os.path.join(log_dir, f"{s}.log"), self.log_max_bytes, self.log_backups
                )
                for s in STREAMS
            }
            try:
                popen = self._popen(command, cwd, env, launch)
            except OSError:
                for log in logs.values():
                    log.close()
                raise
            words = command.split()
            info = BackgroundProcess(
                id=process_id,
                name=name or (os.path.basename(words[0]) if words else "process"),
                command=command,
                cwd=cwd,
                owner=owner,
                pid=popen.pid,
                started_at=time.time(),
                status="running",
                exit_code=None,
                ended_at=None,
                log_dir=log_dir,
            )
            entry = RunningProcess(
                info,
                popen,
                release=None if launch is None else launch.release,
                control=GROUP_CONTROL if launch is None else launch.control,
            )
            entry.pump = threading.Thread(
                target=pump_output,
                args=(entry, logs),
                name=f"toolwire-bg-{process_id}",
                daemon=True,
            )
            entry.pump.start()
            self._entries[process_id] = entry
            return info

    def _popen(
        self, command: str, cwd: str, env: Mapping[str, str] | None, launch: Launch | None
    ) -> subprocess.Popen[bytes]:
        """``bash -c command`` in ``cwd`` with the scrubbed ``env``, or the launch as given."""
        if launch is None:
            argv, where, child_env = (
                ["bash", "-c", command],
                cwd,
                scrubbed_env(env, allowlist=self._env_allowlist),
            )
        else:
            argv, where, child_env = list(launch.argv), None, dict(launch.env)
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL if launch is None else launch.control.stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=where,
            env=child_env,
            start_new_session=True,
            close_fds=True,
        )

    def _entry(self, process_id: str, owner: str) -> RunningProcess:
        if self.replica is not None:  # another replica's process: say whose, not "unknown"
            self.replica.check(process_id, "background process")
        entry = self._entries.get(process_id)
        if entry is None or entry.info.owner != owner:
            raise LookupError(f"no background process with id {process_id!r}")
        return entry

    def get(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """A snapshot of one process. Raises LookupError for an unknown (or foreign) id."""
        return self._entry(process_id, owner).snapshot()

    def list_processes(self, *, owner: str) -> list[BackgroundProcess]:
        """Snapshots of the owner's processes, oldest first."""
        found = [e.snapshot() for e in list(self._entries.values()) if e.info.owner == owner]
        return sorted(found, key=lambda p: p.started_at)

    async def wait(self, process_id: str, *, owner: str, timeout_s: float) -> BackgroundProcess:
        """Wait up to ``timeout_s`` for the process to end; returns its snapshot either way."""
        entry = self._entry(process_id, owner)
        with anyio.move_on_after(max(timeout_s, 0.0)):
            while entry.snapshot().status == "running":
                await anyio.sleep(_POLL_S)
        return entry.snapshot()

    async def stop(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """``SIGTERM`` the group, ``SIGKILL`` it after the grace; returns the final snapshot."""
        entry = self._entry(process_id, owner)
        await self._stop_entries([entry])
        return entry.snapshot()

    async def _stop_entries(self, entries: Sequence[RunningProcess]) -> None:
        live = [e for e in entries if not e.group_gone]
        for entry in live:
            if entry.snapshot().status == "running":
                entry.stop_requested = True
            entry.signal_group(signal.SIGTERM)
        with anyio.move_on_after(self.stop_grace_s):
            while any(e.snapshot().status == "running" for e in live):
                await anyio.sleep(_POLL_S)
        for entry in live:
            entry.signal_group(signal.SIGKILL)
        with anyio.move_on_after(5.0):
            while any(e.snapshot().status == "running" for e in live):
                await anyio.sleep(_POLL_S)
        for entry in live:
            entry.signal_group(0)  # forget the groups that are gone

    async def read_tail(
        self, process_id: str, *, owner: str, stream: LogStream, lines: int
    ) -> list[str]:
        """The last ``lines`` lines of one stream's log (older generations included as needed).

        Raises:
            LookupError: unknown id.
        """
        entry = self._entry(process_id, owner)
        path = os.path.join(entry.info.log_dir, f"{stream}.log")
        return await anyio.to_thread.run_sync(tail_generations, path, lines, self.log_backups)

    async def watch(
        self,
        process_id: str,
        *,
        owner: str,
        patterns: Sequence[str],
        timeout_s: float,
        streams: Sequence[LogStream] = STREAMS,
    ) -> WatchResult:
        """Wait for a log line matching one of ``patterns`` (``/regex/`` or a substring).

        The current log generation is scanned from its start, then followed. Returns at the
        first match, when the process has ended and its output is read, or at the timeout.

        Raises:
            LookupError: unknown id.
            re.error: a ``/regex/`` pattern does not compile.
        """
        return await watch_logs(self._entry(process_id, owner), patterns, timeout_s, streams)

    def kill_all_now(self) -> None:
        """``SIGKILL`` every group this manager started, at once, without waiting.

        At interpreter exit every group still tracked is killed this way, whether or not its manager
        is still alive (`toolwire.capabilities.kinds.process._background_process.kill_live_groups`).
        """
        for entry in list(self._entries.values()):
            entry.stop_requested = True
            entry.signal_group(signal.SIGKILL)

    async def aclose(self) -> None:
        """Stop every process (``SIGTERM``, grace, ``SIGKILL`` to each group).

        Idempotent: a second call returns at once (and never signals a group again, whose
        number the system may have reused).
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            spawner, self._spawner = self._spawner, None
        if spawner is not None:
            spawner.shutdown(wait=False)
        entries = list(self._entries.values())
        with anyio.CancelScope(shield=True):
            await self._stop_entries(entries)
            for entry in entries:
                if entry.pump is not None:
                    await anyio.to_thread.run_sync(entry.pump.join, 5.0)

    async def __aenter__(self) -> ProcessManager:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"ProcessManager(base_dir={self.base_dir!r}, processes={len(self._entries)})"
