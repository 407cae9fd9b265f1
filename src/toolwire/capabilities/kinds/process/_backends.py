"""`ProcessBackend`: where the process seam's children run; `LocalProcessBackend`: this machine.

The process seam (`LocalScopedProcess`) does the policy: the declared binaries, the scrubbed
environment, the default working directory and timeout, the owner of background processes.
The backend does the running, for every child of every tool:

- `run`: one child to completion (what ``spawn`` and the terminal use);
- `start` and the owner-keyed operations: background processes that outlive a call.

So anything that wraps a backend (a sandbox, an audit log, a policy that refuses some commands) sees
every child, one-shot and background alike: subclass `WrapperProcessBackend` and override what you
watch. With every child the seam passes the call's `Confinement` (the tool's file roots, deny
prefixes and network reach): a confining backend
(`toolwire.capabilities.kinds.process.sandbox.backend.SandboxedProcessBackend`) enforces it,
`LocalProcessBackend` ignores it. A backend has a lifecycle: the `CapabilityBackends` holding it
close it, which stops every background process.
"""

from __future__ import annotations

import builtins
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolwire.capabilities.kinds.process._runner import DEFAULT_MAX_OUTPUT_BYTES, run_process
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.process.sandbox._confinement import Confinement
from toolwire.capabilities.seams import BackgroundProcess, LogStream, ProcessResult, WatchResult
from toolwire.context import AbortSignal
from toolwire.errors import CapabilityError

__all__ = [
    "BackgroundRequest",
    "LocalProcessBackend",
    "ProcessBackend",
    "ProcessRequest",
    "WrapperProcessBackend",
]

_NO_BACKGROUND = (
    "BACKGROUND_NOT_SUPPORTED: this process backend runs no background processes; give "
    "CapabilityBackends processes=LocalProcessBackend(ProcessManager('<log dir>')), as "
    "create_backends() does"
)


@dataclass(frozen=True, kw_only=True, slots=True)
class ProcessRequest:
    """One child to run to completion: what the process seam hands a backend's `run`.

    Attributes:
        argv: The binary and its arguments (no shell).
        env: The child's whole environment (the seam has scrubbed it).
        cwd: Working directory; ``None``: the backend's own.
        timeout_s: Seconds before the child's whole group is killed; ``None``: no limit.
        abort_signal: Ends the child when it fires.
        max_output_bytes: Bytes kept of each stream (head and tail).
        confinement: The call's reach; ``None``: the caller gives none.
    """

    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: str | None = None
    timeout_s: float | None = None
    abort_signal: AbortSignal | None = None
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    confinement: Confinement | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class BackgroundRequest:
    """One background process to start: what the process seam hands a backend's `start`.

    Attributes:
        command: The bash command line (run as ``bash -c command``).
        owner: Whose process it is (a personality id).
        cwd: Its working directory.
        env: Its whole environment (the seam has scrubbed it).
        name: A short label; ``None``: the command's first word.
        confinement: The call's reach; ``None``: the caller gives none.
    """

    command: str
    owner: str
    cwd: str
    env: Mapping[str, str]
    name: str | None = None
    confinement: Confinement | None = None


class ProcessBackend(ABC):
    """Runs the children the process seam has already checked; see the module docstring.

    Subclasses implement `run` (a `ProcessRequest`); one with background processes also sets
    `supports_background` and implements `start` (a `BackgroundRequest`) and the owner-keyed
    operations (the base ones refuse). Every operation on background processes takes the
    ``owner`` (a personality id): a process is visible only to the owner that started it
    (`LookupError` otherwise).
    """

    @abstractmethod
    async def run(self, request: ProcessRequest) -> ProcessResult:
        """Run ``request.argv`` to completion (no shell); ``request.env`` is the child's whole
        environment; ``request.confinement`` is the call's reach (``None``: none given).

        Raises:
            AbortedError: the signal had fired before the child started.
            OSError: the child could not be started.
        """

    @property
    def supports_background(self) -> bool:
        """Whether `start` and the other background operations work."""
        return False

    @property
    def sandboxed(self) -> bool:
        """Whether the children run confined to their call's `Confinement`."""
        return False

    def take_notice(self) -> str | None:
        """A warning for the user, given once: the first caller gets it, later ones ``None``
        (an unsandboxed fallback says so on the first command). None by default."""
        return None

    async def start(self, request: BackgroundRequest) -> BackgroundProcess:
        """Start ``bash -c request.command`` in the background for ``request.owner``;
        ``request.env`` is its whole environment.

        Raises:
            CapabilityError: the owner is at its cap, the backend is closed, or it has no
                background support.
            OSError: the process could not be started.
        """
        raise CapabilityError(_NO_BACKGROUND)

    async def list_processes(self, *, owner: str) -> builtins.list[BackgroundProcess]:
        """The owner's processes, oldest first."""
        raise CapabilityError(_NO_BACKGROUND)

    async def get(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """One process's snapshot. Raises LookupError for an id the owner does not have."""
        raise CapabilityError(_NO_BACKGROUND)

    async def read_tail(
        self, process_id: str, *, owner: str, stream: LogStream, lines: int
    ) -> builtins.list[str]:
        """The last ``lines`` lines of one stream's log."""
        raise CapabilityError(_NO_BACKGROUND)

    async def wait(self, process_id: str, *, owner: str, timeout_s: float) -> BackgroundProcess:
        """Wait up to ``timeout_s`` for the process to end; its snapshot either way."""
        raise CapabilityError(_NO_BACKGROUND)

    async def watch(
        self,
        process_id: str,
        *,
        owner: str,
        patterns: Sequence[str],
        timeout_s: float,
        streams: Sequence[LogStream],
    ) -> WatchResult:
        """Wait for a log line matching one of ``patterns``."""
        raise CapabilityError(_NO_BACKGROUND)

    async def stop(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """Stop the process's whole group; its final snapshot."""
        raise CapabilityError(_NO_BACKGROUND)

    async def aclose(self) -> None:  # noqa: B027 - a backend with nothing to close keeps this
        """Release what the backend holds (stop every background process); idempotent."""

    async def __aenter__(self) -> ProcessBackend:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()


class LocalProcessBackend(ProcessBackend):
    """Children on this machine: `run_process` for one-shot runs, a `ProcessManager` for
    background processes.

    Children are not confined: the `Confinement` the seam passes is ignored.

    Args:
        manager: Runs the background processes (logs in its ``base_dir``); the backend owns it
            and closes it. Without one, background processes are not supported.
        notice: A warning `take_notice` gives once (why commands run unsandboxed).
    """

    def __init__(self, manager: ProcessManager | None = None, *, notice: str | None = None) -> None:
        self._manager = manager
        self._notice = notice
        self._notice_lock = threading.Lock()

    def take_notice(self) -> str | None:
        """The ``notice`` the backend was built with, to the first caller only."""
        with self._notice_lock:
            notice, self._notice = self._notice, None
        return notice

    @property
    def manager(self) -> ProcessManager | None:
        """The background process manager, if any."""
        return self._manager

    @property
    def supports_background(self) -> bool:
        """True when the backend has a `ProcessManager`."""
        return self._manager is not None

    def _background(self) -> ProcessManager:
        if self._manager is None:
            raise CapabilityError(_NO_BACKGROUND)
        return self._manager

    async def run(self, request: ProcessRequest) -> ProcessResult:
        """`run_process` with the request's arguments (``confinement`` is ignored)."""
        return await run_process(
            request.argv,
            cwd=request.cwd,
            env=request.env,
            timeout=request.timeout_s,
            abort_signal=request.abort_signal,
            max_output_bytes=request.max_output_bytes,
        )

    async def start(self, request: BackgroundRequest) -> BackgroundProcess:
        """`ProcessManager.start` (``env`` is already scrubbed, so it passes through as is;
        ``confinement`` is ignored)."""
        return await self._background().start(
            request.command,
            owner=request.owner,
            cwd=request.cwd,
            env=request.env,
            name=request.name,
        )

    async def list_processes(self, *, owner: str) -> builtins.list[BackgroundProcess]:
        """`ProcessManager.list_processes`."""
        return self._background().list_processes(owner=owner)

    async def get(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """`ProcessManager.get`."""
        return self._background().get(process_id, owner=owner)

    async def read_tail(
        self, process_id: str, *, owner: str, stream: LogStream, lines: int
    ) -> builtins.list[str]:
        """`ProcessManager.read_tail`."""
        return await self._background().read_tail(
            process_id, owner=owner, stream=stream, lines=lines
        )

    async def wait(self, process_id: str, *, owner: str, timeout_s: float) -> BackgroundProcess:
        """`ProcessManager.wait`."""
        return await self._background().wait(process_id, owner=owner, timeout_s=timeout_s)

    async def watch(
        self,
        process_id: str,
        *,
        owner: str,
        patterns: Sequence[str],
        timeout_s: float,
        streams: Sequence[LogStream],
    ) -> WatchResult:
        """`ProcessManager.watch`."""
        return await self._background().watch(
            process_id, owner=owner, patterns=patterns, timeout_s=timeout_s, streams=streams
        )

    async def stop(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """`ProcessManager.stop`."""
        return await self._background().stop(process_id, owner=owner)

    async def aclose(self) -> None:
        """Close the manager: every background process group is stopped; idempotent."""
        if self._manager is not None:
            await self._manager.aclose()

    def __repr__(self) -> str:
        return f"LocalProcessBackend(manager={self._manager!r})"


class WrapperProcessBackend(ProcessBackend):
    """A backend that hands everything to ``wrapped``: subclass it and override what you watch.

    ```python
    class Audited(WrapperProcessBackend):
        async def start(self, request):
            log.info("background: %s", request.command)
            return await super().start(request)
    ```

    Closing the wrapper closes ``wrapped``.
    """

    def __init__(self, wrapped: ProcessBackend) -> None:
        self.wrapped = wrapped

    @property
    def supports_background(self) -> bool:
        """Whether ``wrapped`` has background processes."""
        return self.wrapped.supports_background

    @property
    def sandboxed(self) -> bool:
        """Whether ``wrapped`` confines its children."""
        return self.wrapped.sandboxed

    def take_notice(self) -> str | None:
        """``wrapped.take_notice``."""
        return self.wrapped.take_notice()

    async def run(self, request: ProcessRequest) -> ProcessResult:
        """``wrapped.run``."""
        return await self.wrapped.run(request)

    async def start(self, request: BackgroundRequest) -> BackgroundProcess:
        """``wrapped.start``."""
        return await self.wrapped.start(request)

    async def list_processes(self, *, owner: str) -> builtins.list[BackgroundProcess]:
        """``wrapped.list_processes``."""
        return await self.wrapped.list_processes(owner=owner)

    async def get(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """``wrapped.get``."""
        return await self.wrapped.get(process_id, owner=owner)

    async def read_tail(
        self, process_id: str, *, owner: str, stream: LogStream, lines: int
    ) -> builtins.list[str]:
        """``wrapped.read_tail``."""
        return await self.wrapped.read_tail(process_id, owner=owner, stream=stream, lines=lines)

    async def wait(self, process_id: str, *, owner: str, timeout_s: float) -> BackgroundProcess:
        """``wrapped.wait``."""
        return await self.wrapped.wait(process_id, owner=owner, timeout_s=timeout_s)

    async def watch(
        self,
        process_id: str,
        *,
        owner: str,
        patterns: Sequence[str],
        timeout_s: float,
        streams: Sequence[LogStream],
    ) -> WatchResult:
        """``wrapped.watch``."""
        return await self.wrapped.watch(
            process_id, owner=owner, patterns=patterns, timeout_s=timeout_s, streams=streams
        )

    async def stop(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """``wrapped.stop``."""
        return await self.wrapped.stop(process_id, owner=owner)

    async def aclose(self) -> None:
        """Close ``wrapped``."""
        await self.wrapped.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.wrapped!r})"
