"""The ``process`` kind: child processes of declared binaries, in one room.

- ``kind.py``: the declaration (`ProcessCapability`, ``process(...)``) and its `CapabilityKind` row;
- ``seam.py``: the `ScopedProcess` protocol a tool sees, and `BackgroundProcesses`;
- ``_scoped.py``: `LocalScopedProcess`, the seam bound to one call, holding the policy;
- ``_backends.py``: `ProcessBackend`, where children run (``LocalProcessBackend``: this machine);
- ``_runner.py``: running one child (`run_process`, `scrubbed_env`);
- ``background.py``, ``_background_process.py``, ``_process_logs.py``, ``_log_watch.py``: background
  processes that outlive a call, their logs and their watchers;
- ``sandbox/``: the bubblewrap process backend (`SandboxedProcessBackend`) and its egress proxy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.process.kind import (
        DEFAULT_OWNER,
        PROCESS,
        STREAMS,
        BackgroundProcess,
        BackgroundProcesses,
        LogStream,
        ProcessCapability,
        ProcessResult,
        ProcessStatus,
        ScopedProcess,
        WatchResult,
        confinement_for,
        process,
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
    "confinement_for",
    "process",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_OWNER": "toolwire.capabilities.kinds.process.kind",
        "PROCESS": "toolwire.capabilities.kinds.process.kind",
        "STREAMS": "toolwire.capabilities.kinds.process.kind",
        "BackgroundProcess": "toolwire.capabilities.kinds.process.kind",
        "BackgroundProcesses": "toolwire.capabilities.kinds.process.kind",
        "LogStream": "toolwire.capabilities.kinds.process.kind",
        "ProcessCapability": "toolwire.capabilities.kinds.process.kind",
        "ProcessResult": "toolwire.capabilities.kinds.process.kind",
        "ProcessStatus": "toolwire.capabilities.kinds.process.kind",
        "ScopedProcess": "toolwire.capabilities.kinds.process.kind",
        "WatchResult": "toolwire.capabilities.kinds.process.kind",
        "confinement_for": "toolwire.capabilities.kinds.process.kind",
        "process": "toolwire.capabilities.kinds.process.kind",
    },
    globals(),
)
