"""What the resolver builds seams from (`CapabilityBackends`) and for whom (`CapabilityScope`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from toolwire.capabilities.kinds.process._backends import ProcessBackend, ProcessRequest
from toolwire.capabilities.kinds.process.sandbox._settings import (
    SandboxMode,
    SandboxSettings,
    sandbox_settings,
)
from toolwire.capabilities.kinds.secrets._resolvers import SecretsResolver
from toolwire.capabilities.seams import Attachment, KeyValueStore, NetworkPolicy, ProcessResult
from toolwire.context import AbortSignal, ToolContext
from toolwire.errors import ConfigurationError
from toolwire.principals import LOCAL, Principal
from toolwire.safety.protected_paths import ProtectedPaths

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.network._fetcher import SafeFetcher
    from toolwire.stores import KeyValueBackend

__all__ = ["CapabilityBackends", "CapabilityScope", "FsReach"]


@dataclass(frozen=True, kw_only=True, slots=True)
class FsReach:
    """A personality's file reach: path prefixes per side (an empty side reaches nothing)."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class CapabilityScope:
    """Who is calling: what scopes storage ids, reach, aborts and attachments for one call.

    Attributes:
        session_id: The session (``session:<id>`` storage; the personality fallback).
        personality_id: The active personality, if any; it owns the background processes.
        abort_signal: Kills running child processes when it fires.
        working_dir: Relative declared paths resolve against it (default: the current dir).
        turn_attachments: This turn's attachments.
        network_policy: The personality's policy for this call; overrides the backends' one.
        principal: Who the call is made for; it owns background processes and browser
            contexts with the personality and session (`toolwire.principals`).
    """

    session_id: str
    personality_id: str | None = None
    abort_signal: AbortSignal | None = None
    working_dir: str | None = None
    turn_attachments: Sequence[Attachment] = ()
    network_policy: NetworkPolicy | None = None
    principal: Principal = LOCAL

    @classmethod
    def from_context(
        cls, ctx: ToolContext, turn_attachments: Sequence[Attachment] = ()
    ) -> CapabilityScope:
        """The scope of a call made with ``ctx``."""
        return cls(
            session_id=ctx.session_id,
            personality_id=ctx.personality_id,
            abort_signal=ctx.abort_signal,
            working_dir=ctx.working_dir,
            turn_attachments=tuple(turn_attachments),
            network_policy=ctx.network_policy,
            principal=ctx.principal,
        )


class _DefaultProcesses(ProcessBackend):
    """Stands for "not given": `CapabilityBackends` builds the backend its sandbox mode gives."""

    async def run(self, request: ProcessRequest) -> ProcessResult:  # pragma: no cover
        raise AssertionError("replaced in CapabilityBackends.__post_init__")


_DEFAULT_PROCESSES = _DefaultProcesses()


def _paths(name: str, value: Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not all(isinstance(v, str) and v for v in value):
        raise ConfigurationError(f"CapabilityBackends({name}=...) takes a list of paths")
    return tuple(value)


@dataclass(frozen=True, kw_only=True, slots=True)
class CapabilityBackends:
    """What the resolver builds seams from; build it once, share it, close it.

    Attributes:
        kv_store_factory: ``(tool_name, scope_id) -> KeyValueStore``, e.g.
            ``KeyValueBackend.scoped``.
        secrets_resolver: Where secret values come from.
        fs_read: Read prefixes for ``fs_reach(read="from-personality")`` when there is no
            ``personality_fs_reach``. Relative entries resolve against the call's working dir.
        fs_write: Write prefixes, likewise.
        personality_fs_reach: Called once per execution with the personality id; returns its
            reach. ``None`` or an exception means deny-all (so edits apply without a restart).
        always_deny: Prefixes refused on top of the sensitive-path floor.
        protected_paths: What no tool writes inside a write root (toolwire's config, what it
            runs from, git's metadata, ...; `toolwire.safety.protected_paths`): read-only in
            every sandbox, refused by the write tools. ``None``: the defaults.
        fetcher: The shared `SafeFetcher`.
        network_policy: The default network policy (a call's `CapabilityScope` may override).
        attachment_cache_dir: Where attachment files live; only files inside it open.
        inbound_attachments: Attachments every call sees, before the turn's own.
        processes: Where child processes run, one-shot and background; ``None`` = no
            processes. By default, what ``sandbox``'s mode gives, without background
            processes: a bubblewrap sandbox when it can run here (``auto``, ``required``),
            else a `LocalProcessBackend` (``auto``, said loudly; ``off``) or a backend that
            refuses every command (``required``). These backends own it: `aclose` closes it,
            stopping every background process.
        sandbox: The sandbox mode and limits (`SandboxSettings`, or just the mode:
            ``"auto"``, ``"required"``, ``"off"``). With ``required``, a ``processes`` given
            here must confine its children (a `SandboxedProcessBackend` or a wrapper of one).
        process_default_timeout_s: Child-process timeout when a spawn names none.
        process_env_allowlist: Host variables children inherit beyond the safe set.
        kv_backend: A key-value backend these backends own; `aclose` closes it.
        kind_backends: Backends of kinds beyond the built-in ones, by kind name (each kind's
            ``backend`` reads its own).
    """

    kv_store_factory: Callable[[str, str], KeyValueStore] | None = None
    secrets_resolver: SecretsResolver | None = None
    fs_read: Sequence[str] = ()
    fs_write: Sequence[str] = ()
    personality_fs_reach: Callable[[str | None], FsReach | None] | None = None
    always_deny: Sequence[str] | None = None
    protected_paths: ProtectedPaths | None = None
    fetcher: SafeFetcher | None = None
    network_policy: NetworkPolicy | None = None
    attachment_cache_dir: str | None = None
    inbound_attachments: Sequence[Attachment] = ()
    processes: ProcessBackend | None = _DEFAULT_PROCESSES
    sandbox: SandboxSettings | SandboxMode = field(default_factory=SandboxSettings)
    process_default_timeout_s: float = 120.0
    process_env_allowlist: Sequence[str] = ()
    kv_backend: KeyValueBackend | None = field(default=None, repr=False)
    kind_backends: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("fs_read", "fs_write", "always_deny", "process_env_allowlist"):
            object.__setattr__(self, name, _paths(name, getattr(self, name)))
        object.__setattr__(self, "inbound_attachments", tuple(self.inbound_attachments))
        if not self.process_default_timeout_s > 0:
            raise ConfigurationError("process_default_timeout_s must be a positive number")
        if self.processes is not None and not isinstance(self.processes, ProcessBackend):
            raise ConfigurationError(
                f"CapabilityBackends(processes=...) takes a ProcessBackend, got {self.processes!r}"
            )
        self._settle_processes()

    def _settle_processes(self) -> None:
        from toolwire.capabilities.kinds.process.sandbox._modes import (
            UnavailableProcessBackend,
            create_process_backend,
        )

        settings = sandbox_settings(self.sandbox)
        object.__setattr__(self, "sandbox", settings)
        if self.processes is _DEFAULT_PROCESSES:
            object.__setattr__(self, "processes", create_process_backend(settings))
        elif (
            settings.mode == "required"
            and self.processes is not None
            and not self.processes.sandboxed
            and not isinstance(self.processes, UnavailableProcessBackend)
        ):
            raise ConfigurationError(
                f"CapabilityBackends(sandbox='required') but processes={self.processes!r} runs "
                "commands unsandboxed; give a SandboxedProcessBackend, or leave processes out"
            )

    @property
    def sandbox_settings(self) -> SandboxSettings:
        """``sandbox`` as `SandboxSettings` (a bare mode given is read as one)."""
        return sandbox_settings(self.sandbox)

    async def aclose(self) -> None:
        """Close what these backends own: the backends of other kinds (``kind_backends`` that
        have an ``aclose``: the session archive, the browser), the process backend (every
        background process is stopped), the key-value backend and the fetcher. Closing twice
        is harmless."""
        for backend in reversed(list(self.kind_backends.values())):
            kind_closer = getattr(backend, "aclose", None)
            if kind_closer is not None:  # before the store: an archive may share its connection
                await kind_closer()
        if self.processes is not None:
            await self.processes.aclose()
        if self.kv_backend is not None:
            await self.kv_backend.aclose()
        closer = getattr(self.fetcher, "aclose", None)
        if closer is not None:
            await closer()

    async def __aenter__(self) -> CapabilityBackends:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
