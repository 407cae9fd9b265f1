"""The ``process`` kind: child processes of the declared binaries, through ``ctx.scoped_process``.

The seam is bound to the call: the declared binaries, the call's abort signal and working
directory, and its **owner** (the personality id, `DEFAULT_OWNER` without one). It runs
children on the backends' `ProcessBackend` (``CapabilityBackends.processes``; the default is
local), so whatever wraps that backend (a sandbox) covers every child:

- ``spawn(binary, args)``: one child to completion (no shell, scrubbed environment, its whole
  process group killed on timeout or abort);
- ``background``: the owner's **background processes** (`BackgroundProcesses`): start a
  ``bash -c`` command that outlives the call, list, read log tails, wait, watch for a line,
  stop. Only a tool that declared ``bash`` (or ``*``) may use them: every operation raises
  ``BINARY_NOT_ALLOWED`` otherwise. ``None`` when the backend has no background support.

A tool never sees or stops another owner's processes: their ids are unknown to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution, non_empty_strings
from toolwire.seams.process import (
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
    "process",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class ProcessCapability(Capability):
    """Child processes of these binaries only (exact strings, or ``*``)."""

    allowed_binaries: tuple[str, ...]


def process(allowed_binaries: Iterable[str]) -> ProcessCapability:
    """Declare the binaries the tool may spawn (``"git"``, ``"/usr/bin/python3"``, or ``"*"``).

    Background processes run ``bash -c``: they need ``"bash"`` (or ``"*"``).
    """
    return ProcessCapability(
        allowed_binaries=non_empty_strings("process(allowed_binaries)", allowed_binaries)
    )


def _resolve(declared: ProcessCapability, call: Resolution) -> ScopedProcess | None:
    backend = call.backends.processes
    if backend is None:
        return None
    from toolwire.backends.scoped_processes import LocalScopedProcess

    return LocalScopedProcess(
        declared.allowed_binaries,
        abort_signal=call.scope.abort_signal,
        default_timeout_s=call.backends.process_default_timeout_s,
        extra_env_allowlist=call.backends.process_env_allowlist,
        default_cwd=call.scope.working_dir,
        backend=backend,
        owner=call.scope.personality_id or DEFAULT_OWNER,
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
