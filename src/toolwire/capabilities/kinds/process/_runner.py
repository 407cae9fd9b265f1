"""Running one child process: `run_process` and `scrubbed_env`.

This is the runner under `LocalProcessBackend` (and so under the `LocalScopedProcess` seam, in
`toolwire.capabilities.kinds.process._scoped`, which adds the binary check). Every child runs the
same way:

- **no shell**: the argument vector is executed as given;
- **a scrubbed environment**: only ``PATH``, ``HOME``, ``LANG``, ``LC_*``, ``TERM`` and
  ``TMPDIR`` cross from the host (see `scrubbed_env`), plus what the call passes explicitly, so
  an API key in the agent's environment never reaches a tool's child;
- **stdin closed** (``/dev/null``), so a child waiting for input ends instead of hanging;
- **bounded output**: per stream, the first and last ``max_output_bytes / 2`` bytes are kept and
  the middle is dropped (counted in ``ProcessResult.dropped_stdout_bytes`` and marked in the
  text);
- **its own session and process group**: on timeout, abort or cancellation the whole group gets
  ``SIGTERM``, then ``SIGKILL`` after a short grace, children and grandchildren included. When the
  leader exits normally, whatever it left running in its group is killed too: a call leaves nothing
  behind. A runner that starts a child through a launcher with its own way of ending it (a sandbox:
  `toolwire.capabilities.kinds.process.sandbox._lifelines`) passes a `ProcessControl` instead.

Exit codes: the child's own code; ``-N`` when a signal ``N`` it did not get from us ended it;
``124`` when it was killed for exceeding its timeout (as coreutils ``timeout`` reports);
``-N`` with ``aborted=True`` when the abort signal ended it. POSIX only.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Protocol

import anyio
from anyio.abc import ByteReceiveStream, Process

from toolwire.capabilities.seams import ProcessResult
from toolwire.context import AbortSignal

__all__ = [
    "DEFAULT_MAX_OUTPUT_BYTES",
    "GROUP_CONTROL",
    "SAFE_ENV_VARS",
    "TIMEOUT_EXIT_CODE",
    "GroupControl",
    "ProcessControl",
    "check_startable",
    "run_process",
    "scrubbed_env",
]

SAFE_ENV_VARS: tuple[str, ...] = ("PATH", "HOME", "LANG", "LC_*", "TERM", "TMPDIR")
"""Host variables (names or ``fnmatch`` patterns) a child inherits."""

DEFAULT_MAX_OUTPUT_BYTES = 1_000_000
"""Bytes kept per output stream (head and tail halves)."""

TIMEOUT_EXIT_CODE = 124
"""The exit code reported for a child killed at its timeout."""

KILL_GRACE_S = 2.0
"""Seconds between ``SIGTERM`` and ``SIGKILL`` to the process group."""

DRAIN_GRACE_S = 0.5
"""Seconds the output pipes may stay open after the leader exits before the group is killed."""


class ProcessControl(Protocol):
    """How a runner ends a child it started: what `run_process` and the `ProcessManager` call
    instead of signalling the child's process group themselves.
    """

    @property
    def stdin(self) -> int:
        """The child's standard input: ``subprocess.DEVNULL``, or a descriptor (a sandbox's
        lifeline)."""
        ...

    def terminate(self, pid: int) -> None:
        """Ask the child (the leader ``pid``) and everything it started to end: ``SIGTERM``."""
        ...

    def kill(self, pid: int) -> None:
        """End the child and everything it started now, whatever they do: ``SIGKILL``."""
        ...


class GroupControl:
    """The default `ProcessControl`: signals to the child's process group (its own session)."""

    @property
    def stdin(self) -> int:
        """``subprocess.DEVNULL``: stdin closed."""
        return subprocess.DEVNULL

    def terminate(self, pid: int) -> None:
        """``SIGTERM`` to the group ``pid`` leads."""
        _signal_group(pid, signal.SIGTERM)

    def kill(self, pid: int) -> None:
        """``SIGKILL`` to the group ``pid`` leads."""
        _signal_group(pid, signal.SIGKILL)


GROUP_CONTROL = GroupControl()


def scrubbed_env(
    extra: Mapping[str, str] | None = None,
    *,
    allowlist: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment a child gets: safe host variables, then ``extra`` on top.

    Args:
        extra: Variables the caller passes explicitly (they win).
        allowlist: More host variable names or ``fnmatch`` patterns to let through.
        environ: The host environment (default ``os.environ``).

    Returns:
        A new dict; ``PATH`` is always present (``os.defpath`` when the host has none).
    """
    source = os.environ if environ is None else environ
    patterns = (*SAFE_ENV_VARS, *allowlist)
    env = {k: v for k, v in source.items() if any(fnmatchcase(k, p) for p in patterns)}
    env.setdefault("PATH", os.defpath)
    if extra:
        env.update(extra)
    return env


class _HeadTail:
    """Keeps the first and last bytes of a stream, counting what it drops."""

    __slots__ = ("_head", "_head_cap", "_tail", "_tail_cap", "total")

    def __init__(self, limit: int) -> None:
        self._head_cap = limit // 2
        self._tail_cap = limit - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            excess = len(self._tail) - self._tail_cap
            if excess > 0:
                del self._tail[:excess]

    @property
    def dropped(self) -> int:
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        if not self.dropped:
            return bytes(self._head + self._tail).decode("utf-8", errors="replace")
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        return f"{head}\n[… {self.dropped} bytes of output dropped …]\n{tail}"


async def _drain(stream: ByteReceiveStream | None, sink: _HeadTail, done: anyio.Event) -> None:
    try:
        if stream is not None:
            async for chunk in stream:
                sink.feed(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        done.set()


def _signal_group(pgid: int, sig: int) -> None:
    # ProcessLookupError: the group is gone; PermissionError: only zombies are left (macOS).
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _wait_leader(
    process: Process, timeout: float | None, abort_signal: AbortSignal | None
) -> str | None:
    """Wait for the leader; ``"timed_out"`` or ``"aborted"`` when that came first."""
    reason: str | None = None
    with anyio.move_on_after(timeout) as timer:
        async with anyio.create_task_group() as group:
            if abort_signal is not None:

                async def watch_abort() -> None:
                    nonlocal reason
                    await abort_signal.wait()
                    reason = "aborted"
                    group.cancel_scope.cancel()

                group.start_soon(watch_abort)
            await process.wait()
            group.cancel_scope.cancel()
    if reason is None and timer.cancelled_caught:
        reason = "timed_out"
    return reason


async def _terminate(process: Process, control: ProcessControl) -> None:
    control.terminate(process.pid)
    with anyio.move_on_after(KILL_GRACE_S):
        await process.wait()
    control.kill(process.pid)


def _spawn_error(exc: OSError, binary: str, cwd: str | None, env: Mapping[str, str]) -> OSError:
    if cwd is not None and not os.path.isdir(cwd):
        message = f"cannot start {binary!r}: working directory {cwd!r} does not exist"
        return FileNotFoundError(errno.ENOENT, message, cwd)
    if isinstance(exc, FileNotFoundError):
        where = binary if "/" in binary else f"{binary} on PATH={env.get('PATH', '')}"
        return FileNotFoundError(
            errno.ENOENT, f"cannot start {binary!r}: no such executable ({where})", binary
        )
    reason = exc.strerror or str(exc)
    return type(exc)(exc.errno or errno.EIO, f"cannot start {binary!r}: {reason}", binary)


def check_startable(binary: str, cwd: str | None, env: Mapping[str, str]) -> None:
    """Raise what starting ``binary`` in ``cwd`` would (for a runner that starts it through a
    launcher, which would report a missing binary as its own failure).

    Raises:
        FileNotFoundError: ``cwd`` is not a directory, or there is no such executable (on the
            ``PATH`` of ``env`` for a bare name).
        PermissionError: the file is there but not executable.
    """
    if cwd is not None and not os.path.isdir(cwd):
        message = f"cannot start {binary!r}: working directory {cwd!r} does not exist"
        raise FileNotFoundError(errno.ENOENT, message, cwd)
    missing = FileNotFoundError(errno.ENOENT, "No such file or directory")
    if "/" in binary:
        target = binary if os.path.isabs(binary) else os.path.join(cwd or os.getcwd(), binary)
        if not os.path.exists(target):
            raise _spawn_error(missing, binary, cwd, env)
        if not os.access(target, os.X_OK):
            denied = PermissionError(errno.EACCES, "Permission denied")
            raise _spawn_error(denied, binary, cwd, env)
    elif shutil.which(binary, path=env.get("PATH", os.defpath)) is None:
        raise _spawn_error(missing, binary, cwd, env)


async def run_process(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    abort_signal: AbortSignal | None = None,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    control: ProcessControl = GROUP_CONTROL,
) -> ProcessResult:
    """Run ``argv`` to completion in its own process group; no shell, stdin closed.

    This is the runner under `LocalProcessBackend`, so under every ``spawn`` of the seam.

    Args:
        argv: The program and its arguments.
        cwd: Working directory (default: this process's).
        env: The child's **complete** environment (default: `scrubbed_env()`).
        timeout: Seconds before the group is killed and ``timed_out`` set; ``None`` = no limit.
        abort_signal: Kills the group and sets ``aborted`` when it fires.
        max_output_bytes: Bytes kept per stream (head and tail halves).
        control: How the child is ended (its process group by default); a sandbox passes
            its own.

    Raises:
        AbortedError: the signal had fired before the process started.
        OSError: the process could not be started (the message names the binary).
        ValueError: empty ``argv``, a non-positive timeout or output limit.
    """
    if isinstance(argv, str) or not argv:
        raise ValueError("argv must be a non-empty list: ['git', 'status'], not a string")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be positive seconds or None, got {timeout!r}")
    if max_output_bytes < 2:
        raise ValueError(f"max_output_bytes must be at least 2, got {max_output_bytes!r}")
    if abort_signal is not None:
        abort_signal.raise_if_aborted()
    child_env = scrubbed_env() if env is None else dict(env)
    command = [str(part) for part in argv]
    try:
        process = await anyio.open_process(
            command,
            stdin=control.stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=child_env,
            start_new_session=True,
        )
    except OSError as exc:
        raise _spawn_error(exc, command[0], cwd, child_env) from None
    out, err = _HeadTail(max_output_bytes), _HeadTail(max_output_bytes)
    out_done, err_done = anyio.Event(), anyio.Event()
    reason: str | None = None
    try:
        async with anyio.create_task_group() as readers:
            readers.start_soon(_drain, process.stdout, out, out_done)
            readers.start_soon(_drain, process.stderr, err, err_done)
            reason = await _wait_leader(process, timeout, abort_signal)
            if reason is not None:
                await _terminate(process, control)
            with anyio.move_on_after(DRAIN_GRACE_S):
                await out_done.wait()
                await err_done.wait()
            control.kill(process.pid)  # whatever the leader left running
            with anyio.move_on_after(KILL_GRACE_S):
                await out_done.wait()
                await err_done.wait()
            readers.cancel_scope.cancel()  # a process that left the group may hold a pipe
    finally:
        with anyio.CancelScope(shield=True):
            control.kill(process.pid)
            await process.aclose()
    code = process.returncode if process.returncode is not None else -signal.SIGKILL
    return ProcessResult(
        exit_code=TIMEOUT_EXIT_CODE if reason == "timed_out" else code,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=reason == "timed_out",
        aborted=reason == "aborted",
        dropped_stdout_bytes=out.dropped,
        dropped_stderr_bytes=err.dropped,
    )
