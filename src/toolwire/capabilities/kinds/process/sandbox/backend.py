"""`SandboxedProcessBackend`: every child of every tool in its own bubblewrap sandbox.

One sandbox per one-shot run and per background process: its own mount, pid, network, ipc and uts
namespaces (`toolwire.capabilities.kinds.process.sandbox._layout` says what it sees), its own pids
cgroup where toolwire may make one (`toolwire.capabilities.kinds.process.sandbox._cgroups`), and the
per-process limits of `SandboxLimits` (`toolwire.capabilities.kinds.process.sandbox._launch`). The
seam hands each call's `Confinement` (its roots, deny prefixes and network reach) to `run` and
`start`.

**Every process dies with its sandbox, and every sandbox with toolwire.** The command is the only
child of the sandbox's pid 1. A stop or a timeout sends ``SIGTERM`` to every process of the sandbox,
then, after the grace, ends the sandbox through its `Lifeline`: the launcher's watcher kills the
sandbox's pid 1, and the kernel kills whatever is left in its pid namespace (processes that called
``setsid``, double-forked or ignore signals included). The watcher does the same when toolwire dies,
however it dies (`toolwire.capabilities.kinds.process.sandbox._lifelines`). Inside, the exit code of
a command killed by signal ``N`` is ``128 + N`` (the sandbox's pid 1 reports it as a shell does).

**Network.** Without a `NetworkReach` the sandbox has a network namespace of its own with only a
loopback: nothing is reachable. With one, an `EgressGateway` listener (toolwire's egress proxy,
under the call's policy and declared hosts) is bound into the sandbox as a Unix socket, a launcher
starts the relay (`toolwire.capabilities.kinds.process.sandbox.relays`: socat when the host has it,
else relay.py) on ``127.0.0.1:3128`` before the command, and the proxy variables point there; a
program that ignores them reaches nothing.
"""

from __future__ import annotations

import builtins
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from toolwire.capabilities.kinds.process._backends import (
    BackgroundRequest,
    LocalProcessBackend,
    ProcessRequest,
)
from toolwire.capabilities.kinds.process._runner import (
    check_startable,
    run_process,
)
from toolwire.capabilities.kinds.process.background import Launch, ProcessManager
from toolwire.capabilities.kinds.process.sandbox._cgroups import PidsCgroup, PidsCgroups
from toolwire.capabilities.kinds.process.sandbox._confinement import NOTHING, Confinement
from toolwire.capabilities.kinds.process.sandbox._egress_gateway import EgressGateway, EgressLink
from toolwire.capabilities.kinds.process.sandbox._host_dir import HostDir
from toolwire.capabilities.kinds.process.sandbox._launch import (
    EGRESS_SOCKET,
    needs_nproc_inside,
    nproc_launcher,
    outer_command,
    proxy_env,
)
from toolwire.capabilities.kinds.process.sandbox._layout import (
    SYSTEM_PATHS,
    Layout,
    mount_arguments,
)
from toolwire.capabilities.kinds.process.sandbox._lifelines import Lifeline
from toolwire.capabilities.kinds.process.sandbox._probe import (
    bwrap_namespace_flags,
    probe_bubblewrap,
)
from toolwire.capabilities.kinds.process.sandbox._settings import DEFAULT_LIMITS, SandboxLimits
from toolwire.capabilities.kinds.process.sandbox.relays import (
    EgressRelay,
    InsideRelay,
    find_socat,
    python_relay,
    socat_relay,
    system_python,
)
from toolwire.capabilities.seams import BackgroundProcess, ProcessResult
from toolwire.context import AbortSignal
from toolwire.errors import CapabilityError, ConfigurationError

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.network._resolvers import Resolver

__all__ = ["SandboxedProcessBackend"]

logger = logging.getLogger("toolwire.capabilities.kinds.process.sandbox")

_RELEASE_WAIT_S = 5.0
"""How long a finished sandbox's cgroup may take to empty before its removal is given up."""


@dataclass(frozen=True, kw_only=True, slots=True)
class _Sandbox:
    """One prepared sandbox: the command line that starts it and what frees it once ended."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    release: Callable[[], None]
    control: Lifeline


class _Release:
    """Frees one sandbox once (its lifeline; its cgroup, emptied then removed; its egress
    listener)."""

    def __init__(
        self, lifeline: Lifeline, cgroup: PidsCgroup | None, link: EgressLink | None
    ) -> None:
        self._lifeline = lifeline
        self._cgroup = cgroup
        self._link = link
        self._lock = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            cgroup, link = self._cgroup, self._link
            self._cgroup = self._link = None
        self._lifeline.close()
        if cgroup is not None:
            deadline = time.monotonic() + _RELEASE_WAIT_S
            pause = 0.001  # what is left (a relay) is usually gone within a millisecond or two
            while True:
                cgroup.kill()
                if cgroup.remove():
                    break
                if time.monotonic() > deadline:
                    logger.warning("toolwire: sandbox cgroup %s did not empty", cgroup.path)
                    break
                time.sleep(pause)
                pause = min(pause * 2, 0.02)
        if link is not None:
            link.close()


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


class SandboxedProcessBackend(LocalProcessBackend):
    """Runs every child in a bubblewrap sandbox (see the module docstring).

    Args:
        manager: Runs the background processes (each in its own sandbox); without one,
            background processes are not supported.
        limits: Resource limits of every sandbox.
        state_paths: toolwire's own state to hide in every sandbox, besides ``.toolwire`` in
            each root and in the home directory (the manager's log directory is added).
        system_paths: What every sandbox sees read-only (`SYSTEM_PATHS`).
        egress_resolver: Name resolution for the egress proxy (the system's by default).
        egress_relay: The relay inside a sandbox with network: ``auto`` (socat when the
            sandbox sees it, else relay.py), ``socat`` or ``python``
            (`toolwire.capabilities.kinds.process.sandbox.relays`).

    Raises:
        ConfigurationError: bubblewrap cannot run here (`probe_bubblewrap` says why), or
            ``egress_relay="socat"`` and the sandbox sees no socat.
    """

    def __init__(
        self,
        manager: ProcessManager | None = None,
        *,
        limits: SandboxLimits = DEFAULT_LIMITS,
        state_paths: Sequence[str] = (),
        system_paths: Sequence[str] = SYSTEM_PATHS,
        egress_resolver: Resolver | None = None,
        egress_relay: EgressRelay = "auto",
    ) -> None:
        probe = probe_bubblewrap()
        if not probe.usable or probe.path is None:
            raise ConfigurationError(
                f"SandboxedProcessBackend: {probe.reason}; create_backends(sandbox='auto') "
                "falls back to unsandboxed commands, and says so"
            )
        super().__init__(manager)
        self._bwrap = probe.path
        self.probe = probe
        self.limits = limits
        state = [*state_paths, *([manager.base_dir] if manager is not None else [])]
        self._state = tuple(os.path.abspath(p) for p in state)
        self._system = tuple(system_paths)
        self._socat = find_socat(self._system) if egress_relay != "python" else None
        if egress_relay == "socat" and self._socat is None:
            raise ConfigurationError(
                "SandboxedProcessBackend(egress_relay='socat'): no socat in /usr/bin, "
                "/usr/local/bin or /bin of the sandbox; install it (apt-get install socat) or "
                "pass egress_relay='auto'"
            )
        self._host = HostDir()
        self._egress = EgressGateway(egress_resolver)
        self._cgroups = PidsCgroups.detect() if limits.max_processes > 0 else None
        self._live: set[AbortSignal] = set()
        self._closed = False

    @property
    def sandboxed(self) -> bool:
        """True: every child runs in a sandbox."""
        return True

    @property
    def process_bound(self) -> str:
        """What bounds the number of processes in one sandbox, in words."""
        limit = self.limits.max_processes
        if limit == 0:
            return "processes per sandbox not bounded (max_processes = 0)"
        if self._cgroups is not None:
            return f"at most {limit} processes per sandbox ({self._cgroups.description})"
        if needs_nproc_inside():
            return f"at most {limit} processes per sandbox (RLIMIT_NPROC, own user namespace)"
        return "processes per sandbox NOT bounded: root, and no pids cgroup can be made here"

    @property
    def egress_relay(self) -> str:
        """The relay a sandbox with network runs: ``socat`` or ``python``."""
        return "python" if self._socat is None else "socat"

    @property
    def description(self) -> str:
        """One line for the ``serve`` banner and ``toolwire doctor``."""
        version = f" {self.probe.version}" if self.probe.version else ""
        relay = "socat" if self._socat is not None else "python3 relay.py"
        return f"bubblewrap{version}, {self.process_bound}, network relayed by {relay}"

    def _relay(self, layout: Layout, nproc: int) -> InsideRelay:
        if self._socat is not None:
            return socat_relay(self._socat, nproc=nproc, max_processes=self.limits.max_processes)
        return python_relay(system_python((*self._system, *layout.visible)), nproc=nproc)

    def _prepare(
        self,
        command: Sequence[str],
        cwd: str | None,
        env: Mapping[str, str],
        confinement: Confinement,
        link: EgressLink | None,
    ) -> _Sandbox:
        cwd = os.path.abspath(cwd) if cwd is not None else os.getcwd()
        check_startable(command[0], cwd, env)
        layout = mount_arguments(
            confinement,
            cwd=cwd,
            files=self._host.files(),
            home=os.environ.get("HOME"),
            state=(*self._state, self._host.path),
            system_paths=self._system,
        )
        bwrap = [self._bwrap, *layout.arguments, *bwrap_namespace_flags()]
        child_env = dict(env)
        tmp = child_env.get("TMPDIR")
        if tmp and not any(_under(os.path.realpath(tmp), w) for w in layout.writable):
            child_env["TMPDIR"] = "/tmp"
        nproc = self.limits.max_processes if needs_nproc_inside() else 0
        inner: list[str] = []
        if link is not None:
            relay = self._relay(layout, nproc)
            bwrap += [*relay.bwrap, "--bind", link.path, EGRESS_SOCKET]
            inner = list(relay.launcher)
            child_env = proxy_env(child_env)
        elif nproc:
            inner = nproc_launcher(nproc)
        cgroup = self._cgroups.create(self.limits.max_processes) if self._cgroups else None
        lifeline = Lifeline()
        argv = outer_command(
            bwrap,
            [*inner, *command],
            limits=self.limits,
            cgroup_procs=None if cgroup is None else cgroup.procs_file,
        )
        return _Sandbox(
            argv=tuple(argv),
            env=child_env,
            release=_Release(lifeline, cgroup, link),
            control=lifeline,
        )

    async def _sandbox(
        self,
        command: Sequence[str],
        cwd: str | None,
        env: Mapping[str, str],
        confinement: Confinement | None,
    ) -> _Sandbox:
        if self._closed:
            raise CapabilityError("SANDBOX_CLOSED: the sandbox backend is closed")
        return await anyio.to_thread.run_sync(
            self._prepare_linked, command, cwd, env, confinement or NOTHING
        )

    def _prepare_linked(
        self,
        command: Sequence[str],
        cwd: str | None,
        env: Mapping[str, str],
        confinement: Confinement,
    ) -> _Sandbox:
        """`_prepare` with the sandbox's egress listener opened first when it has a network
        reach (one worker thread for both: a command's start-up is measured in milliseconds)."""
        if confinement.network is None:
            return self._prepare(command, cwd, env, confinement, None)
        link = self._egress.open_blocking(confinement.network, self._host.path)
        try:
            return self._prepare(command, cwd, env, confinement, link)
        except BaseException:
            link.close()
            raise

    async def run(self, request: ProcessRequest) -> ProcessResult:
        """Run ``request.argv`` to completion in a new sandbox confined to
        ``request.confinement`` (nothing but the system when it is ``None``); the sandbox and
        all it holds end with the run.

        Raises:
            AbortedError: the signal had fired before the child started.
            CapabilityError: the backend is closed.
            OSError: the child could not be started (no such binary or working directory, a
                working directory hidden in the sandbox).
        """
        argv, abort_signal = request.argv, request.abort_signal
        if isinstance(argv, str) or not argv:
            raise ValueError("argv must be a non-empty list: ['git', 'status'], not a string")
        if abort_signal is not None:
            abort_signal.raise_if_aborted()
        command = [str(part) for part in argv]
        sandbox = await self._sandbox(command, request.cwd, request.env, request.confinement)
        stop = AbortSignal()
        unsubscribe = (
            abort_signal.subscribe(lambda: stop.abort(abort_signal.reason or "aborted"))
            if abort_signal is not None
            else None
        )
        self._live.add(stop)
        if self._closed:  # closed while this sandbox was being prepared
            stop.abort("the sandbox backend closed")
        try:
            return await run_process(
                sandbox.argv,
                env=sandbox.env,
                timeout=request.timeout_s,
                abort_signal=stop,
                max_output_bytes=request.max_output_bytes,
                control=sandbox.control,
            )
        finally:
            self._live.discard(stop)
            if unsubscribe is not None:
                unsubscribe()
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(sandbox.release)

    async def start(self, request: BackgroundRequest) -> BackgroundProcess:
        """Start ``bash -c request.command`` in the background, in a sandbox of its own that
        ends when it does (or when it is stopped, or the backend closes).

        Raises:
            CapabilityError: the owner is at its cap, the backend is closed, or it has no
                background support.
            OSError: the process could not be started.
        """
        manager = self._background()
        command, cwd, env = request.command, request.cwd, request.env
        sandbox = await self._sandbox(["bash", "-c", command], cwd, env, request.confinement)
        launch = Launch(
            argv=sandbox.argv, env=sandbox.env, release=sandbox.release, control=sandbox.control
        )
        try:
            return await manager.start(
                command, owner=request.owner, cwd=cwd, env=env, name=request.name, launch=launch
            )
        except BaseException:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(sandbox.release)
            raise

    async def aclose(self) -> None:
        """Stop every background process and end every running sandbox (each one's
        namespace, so everything in it), then stop the egress proxy; idempotent."""
        self._closed = True
        for stop in builtins.list(self._live):
            stop.abort("the sandbox backend closed")
        await super().aclose()
        await self._egress.aclose()
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._host.remove)

    def __repr__(self) -> str:
        return f"SandboxedProcessBackend(manager={self.manager!r}, limits={self.limits!r})"
