"""`LocalScopedProcess`: the process seam bound to one call, over a `ProcessBackend`.

The seam holds the policy and the backend does the running
(`toolwire.capabilities.kinds.process._backends`):

- only the declared binaries run (exact strings, or ``*``): ``BINARY_NOT_ALLOWED: <binary> is
  not in the declared allowed_binaries``;
- every child gets a scrubbed environment (`scrubbed_env`) plus what the call passes, the
  call's working directory unless it names one, and the call's abort signal;
- background processes (`OwnedBackgroundProcesses`, the seam's ``background``) belong to the
  call's owner (the personality id) and run ``bash -c``, so they need ``bash`` (or ``*``)
  declared: without it every background operation raises ``BINARY_NOT_ALLOWED``;
- every child, one-shot and background, carries the call's `Confinement` (the tool's file
  roots and network reach, built by the ``process`` kind) to the backend, which a sandboxing
  backend enforces.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Mapping, Sequence

from toolwire.capabilities.kinds.process._backends import (
    BackgroundRequest,
    LocalProcessBackend,
    ProcessBackend,
    ProcessRequest,
)
from toolwire.capabilities.kinds.process._runner import DEFAULT_MAX_OUTPUT_BYTES, scrubbed_env
from toolwire.capabilities.kinds.process.sandbox._confinement import Confinement
from toolwire.capabilities.seams import (
    DEFAULT_OWNER,
    STREAMS,
    BackgroundProcess,
    LogStream,
    ProcessResult,
    WatchResult,
)
from toolwire.context import AbortSignal
from toolwire.errors import BinaryNotAllowedError

__all__ = ["LocalScopedProcess", "OwnedBackgroundProcesses"]

_ONE_SHOT = LocalProcessBackend()
"""The backend of a seam built without one: local one-shot runs, nothing to close."""


def _not_allowed(binary: str, why: str = "") -> BinaryNotAllowedError:
    return BinaryNotAllowedError(
        f"BINARY_NOT_ALLOWED: {binary} is not in the declared allowed_binaries{why}"
    )


class LocalScopedProcess:
    """A `ScopedProcess` that runs only the declared binaries, on ``backend``.

    Args:
        allowed_binaries: Exact binary strings the tool may run (``"git"`` does not allow
            ``"/usr/bin/git"``), or ``"*"`` for any.
        abort_signal: The call's abort signal; it kills a running child.
        default_timeout_s: Timeout when `spawn` is given none.
        max_output_bytes: Bytes kept per output stream.
        extra_env_allowlist: More host variable names (or ``fnmatch`` patterns) to pass on.
        default_cwd: Working directory when `spawn` (or a background start) is given none.
        backend: Where children run (default: local, without background processes).
        owner: Whose background processes `background` shows and starts.
        confinement: The call's reach, handed to the backend with every child (``None``:
            none given; a sandboxing backend then shows the children nothing but the system).
    """

    __slots__ = (
        "_abort_signal",
        "_allowed",
        "_backend",
        "_background",
        "_confinement",
        "_default_cwd",
        "_default_timeout_s",
        "_extra_env",
        "_max_output_bytes",
    )

    def __init__(
        self,
        allowed_binaries: Sequence[str],
        *,
        abort_signal: AbortSignal | None = None,
        default_timeout_s: float = 120.0,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        extra_env_allowlist: Sequence[str] = (),
        default_cwd: str | None = None,
        backend: ProcessBackend | None = None,
        owner: str = DEFAULT_OWNER,
        confinement: Confinement | None = None,
    ) -> None:
        if isinstance(allowed_binaries, str):
            raise TypeError(f"allowed_binaries is a list of binaries: [{allowed_binaries!r}]")
        if not default_timeout_s > 0:
            raise ValueError(f"default_timeout_s must be positive, got {default_timeout_s!r}")
        self._allowed = frozenset(allowed_binaries)
        self._abort_signal = abort_signal
        self._default_timeout_s = default_timeout_s
        self._max_output_bytes = max_output_bytes
        self._extra_env = tuple(extra_env_allowlist)
        self._default_cwd = default_cwd
        self._confinement = confinement
        self._backend = backend if backend is not None else _ONE_SHOT
        self._background = (
            OwnedBackgroundProcesses(
                self._backend,
                owner=owner,
                allowed=self.allows("bash"),
                default_cwd=default_cwd,
                extra_env_allowlist=self._extra_env,
                confinement=confinement,
            )
            if self._backend.supports_background
            else None
        )

    @property
    def allowed_binaries(self) -> frozenset[str]:
        """The declared binaries."""
        return self._allowed

    @property
    def confinement(self) -> Confinement | None:
        """The call's reach, as handed to the backend."""
        return self._confinement

    @property
    def sandboxed(self) -> bool:
        """Whether the backend confines the children to `confinement`."""
        return self._backend.sandboxed

    def take_sandbox_notice(self) -> str | None:
        """The backend's once-only warning for the user (commands run unsandboxed), if it has not
        been given yet (`toolwire.toolbox._sandbox_notices`)."""
        return self._backend.take_notice()

    @property
    def background(self) -> OwnedBackgroundProcesses | None:
        """The owner's background processes; ``None`` when the backend runs none."""
        return self._background

    def allows(self, binary: str) -> bool:
        """Whether ``binary`` may run: ``"*"`` was declared, or exactly this string."""
        return bool(binary) and ("*" in self._allowed or binary in self._allowed)

    def __repr__(self) -> str:
        return f"LocalScopedProcess(allowed_binaries={sorted(self._allowed)!r})"

    async def spawn(
        self,
        binary: str,
        args: Sequence[str] = (),
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> ProcessResult:
        """Run ``binary args...`` to completion (see `toolwire.capabilities.kinds.process._runner`
        for how).

        Args:
            binary: One of the declared binaries.
            args: Its arguments, passed as they are (no shell, no globbing).
            cwd: Working directory (default: ``default_cwd``).
            env: Variables added on top of the scrubbed environment.
            timeout: Seconds (default: ``default_timeout_s``).

        Raises:
            BinaryNotAllowedError: the binary was not declared.
            OSError: the process could not be started.
        """
        if not self.allows(binary):
            raise _not_allowed(binary)
        if isinstance(args, str):
            raise TypeError("args is a list of arguments (there is no shell): ['-la'], not '-la'")
        request = ProcessRequest(
            argv=[binary, *args],
            cwd=cwd if cwd is not None else self._default_cwd,
            env=scrubbed_env(env, allowlist=self._extra_env),
            timeout_s=timeout if timeout is not None else self._default_timeout_s,
            abort_signal=self._abort_signal,
            max_output_bytes=self._max_output_bytes,
            confinement=self._confinement,
        )
        return await self._backend.run(request)


class OwnedBackgroundProcesses:
    """The `BackgroundProcesses` of one owner, over a backend (see the module docstring).

    Args:
        backend: A backend with background support.
        owner: Whose processes these are.
        allowed: Whether the tool declared ``bash`` (or ``*``); every operation refuses if not.
        default_cwd: Working directory of a start that names none (default: the current one).
        extra_env_allowlist: Host variables passed on beyond the safe set.
        confinement: The call's reach, handed to the backend with every start.
    """

    __slots__ = ("_allowed", "_backend", "_confinement", "_default_cwd", "_extra_env", "owner")

    def __init__(
        self,
        backend: ProcessBackend,
        *,
        owner: str,
        allowed: bool,
        default_cwd: str | None = None,
        extra_env_allowlist: Sequence[str] = (),
        confinement: Confinement | None = None,
    ) -> None:
        self._backend = backend
        self._confinement = confinement
        self.owner = owner
        self._allowed = allowed
        self._default_cwd = default_cwd
        self._extra_env = tuple(extra_env_allowlist)

    def _backend_for_owner(self) -> ProcessBackend:
        if not self._allowed:
            raise _not_allowed("bash", " (background processes run bash -c)")
        return self._backend

    async def start(
        self,
        command: str,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> BackgroundProcess:
        """Start ``bash -c command`` for the owner (see `BackgroundProcesses.start`)."""
        backend = self._backend_for_owner()
        if not command.strip():
            raise ValueError("command is empty")
        request = BackgroundRequest(
            command=command,
            owner=self.owner,
            cwd=cwd or self._default_cwd or os.getcwd(),
            env=scrubbed_env(env, allowlist=self._extra_env),
            name=name,
            confinement=self._confinement,
        )
        return await backend.start(request)

    async def list(self) -> builtins.list[BackgroundProcess]:
        """The owner's processes, oldest first."""
        return await self._backend_for_owner().list_processes(owner=self.owner)

    async def get(self, process_id: str) -> BackgroundProcess:
        """One of the owner's processes. Raises LookupError for any other id."""
        return await self._backend_for_owner().get(process_id, owner=self.owner)

    async def read_tail(
        self, process_id: str, *, stream: LogStream, lines: int
    ) -> builtins.list[str]:
        """The last ``lines`` lines of one stream's log."""
        backend = self._backend_for_owner()
        return await backend.read_tail(process_id, owner=self.owner, stream=stream, lines=lines)

    async def wait(self, process_id: str, *, timeout_s: float) -> BackgroundProcess:
        """Wait up to ``timeout_s`` for the process to end."""
        backend = self._backend_for_owner()
        return await backend.wait(process_id, owner=self.owner, timeout_s=timeout_s)

    async def watch(
        self,
        process_id: str,
        *,
        patterns: Sequence[str],
        timeout_s: float,
        streams: Sequence[LogStream] = STREAMS,
    ) -> WatchResult:
        """Wait for a log line matching one of ``patterns``."""
        return await self._backend_for_owner().watch(
            process_id, owner=self.owner, patterns=patterns, timeout_s=timeout_s, streams=streams
        )

    async def stop(self, process_id: str) -> BackgroundProcess:
        """Stop the process's whole group."""
        return await self._backend_for_owner().stop(process_id, owner=self.owner)

    def __repr__(self) -> str:
        return f"OwnedBackgroundProcesses(owner={self.owner!r})"
