"""The ``process`` kind: child processes of the declared binaries, through ``ctx.scoped_process``.

The seam is bound to the call: the declared binaries, the call's abort signal and working
directory, and its **owner** (the personality id, `DEFAULT_OWNER` without one, scoped to the
call's principal: `toolwire.principals.Principal.scoped`, so two credentials never share
processes nor a cap). It runs
children on the backends' `ProcessBackend` (``CapabilityBackends.processes``; the default is
local), so whatever wraps that backend (a sandbox) covers every child:

- ``spawn(binary, args)``: one child to completion (no shell, scrubbed environment, its whole
  process group killed on timeout or abort);
- ``background``: the owner's **background processes** (`BackgroundProcesses`): start a
  ``bash -c`` command that outlives the call, list, read log tails, wait, watch for a line,
  stop. Only a tool that declared ``bash`` (or ``*``) may use them: every operation raises
  ``BINARY_NOT_ALLOWED`` otherwise. ``None`` when the backend has no background support.

A tool never sees or stops another owner's processes: their ids are unknown to it.

Every child carries the call's **confinement**
(`toolwire.capabilities.kinds.process.sandbox.Confinement`): the tool's ``fs_reach`` as resolved for
this call (read and write prefixes, attachments' files), the backends' ``always_deny`` and
``protected_paths``, and, when it declared ``network`` hosts that survive the personality's policy,
that reach; and the declaration's own ``read`` paths, read-only (what the binaries need to run: a
toolchain outside the system, such as the virtualenv the code tools' checkers live in; the tool's
``ScopedFs`` does not get them). A sandboxing backend
(`toolwire.capabilities.kinds.process.sandbox`) confines the children to it: a tool that declared no
file reach runs commands that see only the system.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution, non_empty_strings
from toolwire.capabilities.kinds.fs_reach.kind import FS_REACH, call_reach
from toolwire.capabilities.kinds.network.kind import NETWORK
from toolwire.capabilities.kinds.process.sandbox._confinement import Confinement, NetworkReach
from toolwire.capabilities.kinds.process.seam import (
    DEFAULT_OWNER,
    STREAMS,
    BackgroundProcess,
    BackgroundProcesses,
    LogStream,
    ProcessResult,
    ProcessStatus,
    ScopedProcess,
    WatchResult,
)
from toolwire.errors import ToolDefinitionError

__all__ = [
    "DEFAULT_OWNER",
    "PROCESS",
    "STREAMS",
    "BackgroundProcess",
    "BackgroundProcesses",
    "LogStream",
    "ProcessCapability",
    "ProcessResult",
    "ProcessStatus",
    "ScopedProcess",
    "WatchResult",
    "confinement_for",
    "process",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class ProcessCapability(Capability):
    """Child processes of these binaries only (exact strings, or ``*``), which may read
    ``read_roots`` (absolute paths) besides the call's file reach."""

    allowed_binaries: tuple[str, ...]
    read_roots: tuple[str, ...] = ()


def process(allowed_binaries: Iterable[str], *, read: Iterable[str] = ()) -> ProcessCapability:
    """Declare the binaries the tool may spawn (``"git"``, ``"/usr/bin/python3"``, or ``"*"``).

    Background processes run ``bash -c``: they need ``"bash"`` (or ``"*"``).

    Args:
        allowed_binaries: The binaries.
        read: Absolute paths the children may read (never write) in a sandbox, besides the
            call's file reach: what the binaries need to run when it lies outside the system.
    """
    roots = non_empty_strings("process(read)", read)
    relative = [path for path in roots if not os.path.isabs(path) or "\0" in path]
    if relative:
        raise ToolDefinitionError(f"process(read) takes absolute paths, got {relative[0]!r}")
    return ProcessCapability(
        allowed_binaries=non_empty_strings("process(allowed_binaries)", allowed_binaries),
        read_roots=roots,
    )


def _absolute(paths: Iterable[str], base_dir: str) -> tuple[str, ...]:
    return tuple(os.path.normpath(os.path.join(base_dir, p)) for p in paths if p and "\0" not in p)


def confinement_for(call: Resolution) -> Confinement:
    """The confinement of ``call``'s children (see the module docstring)."""
    base_dir = os.path.abspath(call.scope.working_dir or os.getcwd())
    fs = call.capabilities.get(FS_REACH)
    read, write = call_reach(fs, call) if fs is not None else ((), ())
    reach: NetworkReach | None = None
    spawning = call.capabilities.get(PROCESS)
    if spawning is not None:
        read = (*read, *spawning.read_roots)
    declared = call.capabilities.get(NETWORK)
    if declared is not None:
        from toolwire.capabilities.kinds.network import resolve_allowed_hosts

        policy = call.scope.network_policy or call.backends.network_policy
        hosts = resolve_allowed_hosts(declared.allowed_hosts, policy)
        reach = NetworkReach(allowed_hosts=hosts, policy=policy) if hosts else None
    return Confinement(
        read_roots=_absolute(read, base_dir),
        write_roots=_absolute(write, base_dir),
        deny=_absolute(call.backends.always_deny or (), base_dir),
        network=reach,
        protected=call.backends.protected_paths,
    )


def _resolve(declared: ProcessCapability, call: Resolution) -> ScopedProcess | None:
    backend = call.backends.processes
    if backend is None:
        return None
    from toolwire.capabilities.kinds.process._scoped import LocalScopedProcess

    return LocalScopedProcess(
        declared.allowed_binaries,
        abort_signal=call.scope.abort_signal,
        default_timeout_s=call.backends.process_default_timeout_s,
        extra_env_allowlist=call.backends.process_env_allowlist,
        default_cwd=call.scope.working_dir,
        backend=backend,
        owner=call.scope.principal.scoped(call.scope.personality_id or DEFAULT_OWNER),
        confinement=confinement_for(call),
    )


PROCESS: CapabilityKind[ProcessCapability, ScopedProcess] = CapabilityKind(
    name="process",
    declaration=ProcessCapability,
    resolve=_resolve,
    context_field="scoped_process",
    backend=lambda backends: backends.processes,
    setup_hint="give CapabilityBackends a process backend: processes=LocalProcessBackend() "
    "(the default; create_backends() adds background processes with logs in "
    "<working_dir>/.toolwire/processes)",
)
"""``process(binaries)`` → ``ctx.scoped_process``; needs ``CapabilityBackends.processes``."""
