"""The seam of the ``process`` kind: `ScopedProcess`, its `BackgroundProcesses` and their values."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, runtime_checkable

__all__ = [
    "DEFAULT_OWNER",
    "STREAMS",
    "BackgroundProcess",
    "BackgroundProcesses",
    "LogStream",
    "NoticeSource",
    "ProcessResult",
    "ProcessStatus",
    "ScopedProcess",
    "WatchResult",
]

DEFAULT_OWNER = "default"
"""The owner of background processes started without a personality."""

ProcessStatus: TypeAlias = Literal["running", "exited", "stopped"]
LogStream: TypeAlias = Literal["stdout", "stderr"]
STREAMS: tuple[LogStream, ...] = ("stdout", "stderr")


@dataclass(frozen=True, kw_only=True, slots=True)
class ProcessResult:
    """What a finished child process left."""

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    aborted: bool = False
    dropped_stdout_bytes: int = 0
    """Bytes dropped from the middle of stdout to keep memory bounded (head and tail kept)."""
    dropped_stderr_bytes: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class BackgroundProcess:
    """A snapshot of one background process.

    Attributes:
        id: The backend's id for it.
        name: A label (the start call's ``name``, else the command's first word).
        command: The bash command line.
        cwd: Its working directory.
        owner: The personality that started it.
        pid: The leader's pid (also its process-group id).
        started_at: Epoch seconds.
        status: ``running``, ``exited`` (on its own) or ``stopped`` (by ``stop``).
        exit_code: The leader's exit code (``-N``: killed by signal N); ``None`` while running.
        ended_at: Epoch seconds when the leader ended.
        log_dir: The directory holding ``stdout.log`` and ``stderr.log``.
    """

    id: str
    name: str
    command: str
    cwd: str
    owner: str
    pid: int
    started_at: float
    status: ProcessStatus
    exit_code: int | None
    ended_at: float | None
    log_dir: str


@dataclass(frozen=True, kw_only=True, slots=True)
class WatchResult:
    """What a watch saw: a matching line, the process ending, or neither."""

    matched: bool
    pattern: str | None = None
    stream: LogStream | None = None
    line: str | None = None
    process: BackgroundProcess


@runtime_checkable
class BackgroundProcesses(Protocol):
    """One owner's background processes, for a tool that declared ``bash`` (or ``*``).

    Every method raises `BinaryNotAllowedError` (``BINARY_NOT_ALLOWED: ...``) for a tool that
    did not, and `LookupError` for an id the owner does not have (another owner's included).
    """

    async def start(
        self,
        command: str,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> BackgroundProcess:
        """Start ``bash -c command``; it keeps running after the call.

        Args:
            command: The bash command line.
            cwd: Working directory (default: the call's).
            env: Variables added on top of the scrubbed environment.
            name: A short label.

        Raises:
            CapabilityError: ``PROCESS_CAP_EXCEEDED: ...`` (the owner is at the cap), the
                backend is closed, or bash is not declared.
            OSError: the process could not be started.
        """
        ...

    async def list(self) -> builtins.list[BackgroundProcess]:
        """Snapshots of the owner's processes, oldest first."""
        ...

    async def get(self, process_id: str) -> BackgroundProcess:
        """A snapshot of one process."""
        ...

    async def read_tail(
        self, process_id: str, *, stream: LogStream, lines: int
    ) -> builtins.list[str]:
        """The last ``lines`` lines of one stream's log."""
        ...

    async def wait(self, process_id: str, *, timeout_s: float) -> BackgroundProcess:
        """Wait up to ``timeout_s`` for the process to end; its snapshot either way."""
        ...

    async def watch(
        self,
        process_id: str,
        *,
        patterns: Sequence[str],
        timeout_s: float,
        streams: Sequence[LogStream] = STREAMS,
    ) -> WatchResult:
        """Wait for a log line matching one of ``patterns`` (``/regex/`` or a substring); lines
        already written count. Raises `re.error` for a bad ``/regex/``."""
        ...

    async def stop(self, process_id: str) -> BackgroundProcess:
        """``SIGTERM`` its whole process group, ``SIGKILL`` after a grace; the final snapshot."""
        ...


@runtime_checkable
class ScopedProcess(Protocol):
    """Runs only the tool's declared binaries, with no shell and a scrubbed environment."""

    async def spawn(
        self,
        binary: str,
        args: Sequence[str] = (),
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> ProcessResult:
        """Run ``binary args...`` to completion.

        Raises:
            BinaryNotAllowedError: the binary was not declared.
            OSError: the process could not be started.
        """
        ...

    @property
    def background(self) -> BackgroundProcesses | None:
        """The call owner's background processes; ``None`` when the backend has none."""
        ...


@runtime_checkable
class NoticeSource(Protocol):
    """A process seam that may carry the notice (`LocalScopedProcess` does)."""

    def take_sandbox_notice(self) -> str | None:
        """The notice, to the first caller only."""
        ...
