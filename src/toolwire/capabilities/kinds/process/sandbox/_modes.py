"""The sandbox modes: which `ProcessBackend` a mode gives (`create_process_backend`).

| mode | bubblewrap can run here | it cannot |
| --- | --- | --- |
| ``auto`` (default) | `SandboxedProcessBackend` | `LocalProcessBackend`, said loudly: a warning in
the log, the ``serve`` banner, ``toolwire doctor``, and a ``user`` progress warning on the first
command |
| ``required`` | `SandboxedProcessBackend` | `UnavailableProcessBackend`: every command is refused
(``not_available``, ``SANDBOX_UNAVAILABLE: <why>``) |
| ``off`` | `LocalProcessBackend` | `LocalProcessBackend` |
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolwire.capabilities.kinds.process._backends import (
    BackgroundRequest,
    LocalProcessBackend,
    ProcessBackend,
    ProcessRequest,
)
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.process.sandbox._probe import probe_bubblewrap
from toolwire.capabilities.kinds.process.sandbox._settings import SandboxMode, SandboxSettings
from toolwire.capabilities.seams import BackgroundProcess, LogStream, ProcessResult, WatchResult
from toolwire.errors import CapabilityError

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.network._resolvers import Resolver

__all__ = [
    "SandboxStatus",
    "UnavailableProcessBackend",
    "create_process_backend",
    "sandbox_status",
    "unsandboxed_notice",
]

logger = logging.getLogger("toolwire.capabilities.kinds.process.sandbox")


def unsandboxed_notice(reason: str) -> str:
    """The warning of an ``auto`` sandbox that fell back to running commands unsandboxed."""
    return (
        f"⚠ commands run UNSANDBOXED: {reason}. They reach everything this user can; the "
        'command guard is the only layer left. Set [sandbox] mode = "required" to refuse '
        "them instead."
    )


class UnavailableProcessBackend(ProcessBackend):
    """What ``required`` gives when bubblewrap cannot run: every operation is refused.

    Args:
        reason: Why the sandbox cannot run (`probe_bubblewrap`'s reason).
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def _refuse(self) -> CapabilityError:
        return CapabilityError(
            f"SANDBOX_UNAVAILABLE: commands must run sandboxed ([sandbox] mode = "
            f'"required"), and the sandbox cannot run here: {self.reason}'
        )

    @property
    def supports_background(self) -> bool:
        """True, so the process tools answer with the refusal rather than "not available"."""
        return True

    async def run(self, request: ProcessRequest) -> ProcessResult:
        """Refused: raises `CapabilityError` (``SANDBOX_UNAVAILABLE: ...``)."""
        raise self._refuse()

    async def start(self, request: BackgroundRequest) -> BackgroundProcess:
        """Refused."""
        raise self._refuse()

    async def list_processes(self, *, owner: str) -> builtins.list[BackgroundProcess]:
        """Refused."""
        raise self._refuse()

    async def get(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """Refused."""
        raise self._refuse()

    async def read_tail(
        self, process_id: str, *, owner: str, stream: LogStream, lines: int
    ) -> builtins.list[str]:
        """Refused."""
        raise self._refuse()

    async def wait(self, process_id: str, *, owner: str, timeout_s: float) -> BackgroundProcess:
        """Refused."""
        raise self._refuse()

    async def watch(
        self,
        process_id: str,
        *,
        owner: str,
        patterns: Sequence[str],
        timeout_s: float,
        streams: Sequence[LogStream],
    ) -> WatchResult:
        """Refused."""
        raise self._refuse()

    async def stop(self, process_id: str, *, owner: str) -> BackgroundProcess:
        """Refused."""
        raise self._refuse()

    def __repr__(self) -> str:
        return f"UnavailableProcessBackend({self.reason!r})"


def create_process_backend(
    settings: SandboxSettings,
    manager: ProcessManager | None = None,
    *,
    state_paths: Sequence[str] = (),
    egress_resolver: Resolver | None = None,
) -> ProcessBackend:
    """The process backend ``settings.mode`` gives here (see the module docstring).

    Args:
        settings: The mode and the limits.
        manager: Background processes (``None``: one-shot runs only).
        state_paths: toolwire's state to hide in every sandbox.
        egress_resolver: Name resolution for the egress proxy.
    """
    if settings.mode == "off":
        return LocalProcessBackend(manager)
    probe = probe_bubblewrap()
    if probe.usable:
        from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend

        return SandboxedProcessBackend(
            manager,
            limits=settings.limits,
            state_paths=state_paths,
            egress_resolver=egress_resolver,
        )
    if settings.mode == "required":
        return UnavailableProcessBackend(probe.reason)
    notice = unsandboxed_notice(probe.reason)
    logger.warning("toolwire: %s", notice)
    return LocalProcessBackend(manager, notice=notice)


@dataclass(frozen=True, kw_only=True, slots=True)
class SandboxStatus:
    """How commands run with a process backend, for the ``serve`` banner and ``doctor``.

    Attributes:
        sandboxed: Whether every command runs in a sandbox.
        line: One sentence saying so (and why not, when not).
    """

    sandboxed: bool
    line: str


def sandbox_status(backend: ProcessBackend | None, mode: SandboxMode) -> SandboxStatus:
    """Describe ``backend`` (a `CapabilityBackends`' ``processes``) under ``mode``."""
    if backend is None:
        return SandboxStatus(sandboxed=False, line="no commands: there is no process backend")
    if isinstance(backend, UnavailableProcessBackend):
        return SandboxStatus(
            sandboxed=False,
            line=f'REFUSED (mode = "required"): {backend.reason}',
        )
    if backend.sandboxed:
        description = getattr(backend, "description", None) or repr(backend)
        return SandboxStatus(sandboxed=True, line=f"sandboxed by {description}")
    if mode == "off":
        return SandboxStatus(sandboxed=False, line='UNSANDBOXED ([sandbox] mode = "off")')
    probe = probe_bubblewrap()
    why = probe.reason if not probe.usable else f"the process backend {backend!r} does not sandbox"
    return SandboxStatus(sandboxed=False, line=f"UNSANDBOXED: {why}")
