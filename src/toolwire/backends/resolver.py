"""Capability resolution: a tool's declaration + the backends → the seams on its `ToolContext`.

You build one `CapabilityBackends` (or let `create_backends` do it) and give it to the
registry. For every call, `resolve_capabilities` builds **only what the tool declared**,
scoped to the call:

| declared | seam | needs |
| --- | --- | --- |
| ``storage`` | `KeyValueStore` for ``tool:<name>``, ``session:<id>`` or ``personality:<id>`` | ``kv_store_factory`` |
| ``secrets`` | `DeclaredSecrets` over the declared refs | ``secrets_resolver`` |
| ``network`` | ``HostScopedFetch`` over the declared hosts, narrowed by the policy | ``fetcher`` |
| ``fs_reach`` | `ReachScopedFs` over the declared (or personality's) prefixes | nothing |
| ``process`` | `LocalScopedProcess` over the declared binaries | nothing |
| ``attachments`` | `FilteredAttachments` of the declared kinds | nothing |

A declared seam whose backend is missing is left ``None`` (the tool answers ``not_available``);
`missing_backends` names them up front. Seams the tool did not declare are always ``None``,
even when the context passed in carried some.
"""  # noqa: E501

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from toolwire.backends.attachments import FilteredAttachments, attachment_read_dirs
from toolwire.backends.files import ReachScopedFs
from toolwire.backends.processes import LocalScopedProcess
from toolwire.backends.secrets import (
    DeclaredSecrets,
    SecretsResolver,
)
from toolwire.capabilities import FROM_PERSONALITY, PathReach, StorageScope, ToolCapabilities
from toolwire.context import AbortSignal, ToolContext
from toolwire.errors import ConfigurationError
from toolwire.seams import (
    Attachment,
    KeyValueStore,
    NetworkPolicy,
    ScopedAttachments,
    ScopedFetch,
    ScopedFs,
    ScopedProcess,
    ScopedSecrets,
)

if TYPE_CHECKING:
    from toolwire.backends.kv import KeyValueBackend
    from toolwire.backends.network.fetcher import SafeFetcher

__all__ = [
    "BACKEND_SETUP_HINTS",
    "CapabilityBackends",
    "CapabilityScope",
    "DefaultTtlStore",
    "FsReach",
    "ResolvedCapabilities",
    "missing_backends",
    "resolve_capabilities",
    "storage_scope_id",
]

logger = logging.getLogger("toolwire.backends")

BACKEND_SETUP_HINTS: Mapping[str, str] = {
    "storage": "give CapabilityBackends a kv_store_factory, e.g. "
    "create_backends(kv_url='sqlite:///.toolwire/state.db')",
    "secrets": "give CapabilityBackends a secrets_resolver, e.g. EnvSecretsResolver()",
    "network": "give CapabilityBackends a fetcher: SafeFetcher() (pip install 'toolwire[web]')",
}
"""For each kind `missing_backends` can report, how to provide its backend."""


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
        personality_id: The active personality, if any.
        abort_signal: Kills running child processes when it fires.
        working_dir: Relative declared paths resolve against it (default: the current dir).
        turn_attachments: This turn's attachments.
        network_policy: The personality's policy for this call; overrides the backends' one.
    """

    session_id: str
    personality_id: str | None = None
    abort_signal: AbortSignal | None = None
    working_dir: str | None = None
    turn_attachments: Sequence[Attachment] = ()
    network_policy: NetworkPolicy | None = None

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
        )


def _paths(name: str, value: Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not all(isinstance(v, str) and v for v in value):
        raise ConfigurationError(f"CapabilityBackends({name}=...) takes a list of paths")
    return tuple(value)


@dataclass(frozen=True, kw_only=True, slots=True)
class CapabilityBackends:
    """What the resolver builds seams from; build it once and share it.

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
        fetcher: The shared `SafeFetcher`.
        network_policy: The default network policy (a call's `CapabilityScope` may override).
        attachment_cache_dir: Where attachment files live; only files inside it open.
        inbound_attachments: Attachments every call sees, before the turn's own.
        process_default_timeout_s: Child-process timeout when a spawn names none.
        process_env_allowlist: Host variables children inherit beyond the safe set.
        kv_backend: A key-value backend these backends own; `aclose` closes it.
    """

    kv_store_factory: Callable[[str, str], KeyValueStore] | None = None
    secrets_resolver: SecretsResolver | None = None
    fs_read: Sequence[str] = ()
    fs_write: Sequence[str] = ()
    personality_fs_reach: Callable[[str | None], FsReach | None] | None = None
    always_deny: Sequence[str] | None = None
    fetcher: SafeFetcher | None = None
    network_policy: NetworkPolicy | None = None
    attachment_cache_dir: str | None = None
    inbound_attachments: Sequence[Attachment] = ()
    process_default_timeout_s: float = 120.0
    process_env_allowlist: Sequence[str] = ()
    kv_backend: KeyValueBackend | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for name in ("fs_read", "fs_write", "always_deny", "process_env_allowlist"):
            object.__setattr__(self, name, _paths(name, getattr(self, name)))
        object.__setattr__(self, "inbound_attachments", tuple(self.inbound_attachments))
        if not self.process_default_timeout_s > 0:
            raise ConfigurationError("process_default_timeout_s must be a positive number")

    async def aclose(self) -> None:
        """Close what these backends own: the key-value backend and the fetcher."""
        if self.kv_backend is not None:
            await self.kv_backend.aclose()
        closer = getattr(self.fetcher, "aclose", None)
        if closer is not None:
            await closer()

    async def __aenter__(self) -> CapabilityBackends:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()


class DefaultTtlStore:
    """A `KeyValueStore` that applies a default TTL when `set` is given none.

    Args:
        store: The store to wrap.
        ttl_seconds_default: Seconds a key written without a TTL lives.
    """

    __slots__ = ("_store", "_ttl")

    def __init__(self, store: KeyValueStore, ttl_seconds_default: float) -> None:
        if not ttl_seconds_default > 0:
            raise ConfigurationError("ttl_seconds_default must be a positive number")
        self._store = store
        self._ttl = ttl_seconds_default

    async def get(self, key: str) -> str | None:
        """The value, or ``None``."""
        return await self._store.get(key)

    async def set(self, key: str, value: str, ttl_seconds: float | None = None) -> None:
        """Upsert ``key``; a per-call ``ttl_seconds`` wins over the default."""
        await self._store.set(key, value, ttl_seconds if ttl_seconds is not None else self._ttl)

    async def delete(self, key: str) -> None:
        """Remove ``key``."""
        await self._store.delete(key)

    async def list(self, prefix: str = "") -> list[str]:
        """Live keys starting with ``prefix``, sorted."""
        return await self._store.list(prefix)

    async def increment(self, key: str, by: int = 1) -> int:
        """Atomically add ``by`` (the wrapped store decides the expiry of a new counter)."""
        return await self._store.increment(key, by)

    def __repr__(self) -> str:
        return f"DefaultTtlStore({self._store!r}, ttl_seconds_default={self._ttl!r})"


@dataclass(frozen=True, kw_only=True, slots=True)
class ResolvedCapabilities:
    """The seams built for one call; ``None`` where not declared or not available."""

    kv_store: KeyValueStore | None = None
    secrets_resolver: ScopedSecrets | None = None
    scoped_fetch: ScopedFetch | None = None
    scoped_fs: ScopedFs | None = None
    scoped_process: ScopedProcess | None = None
    attachments: ScopedAttachments | None = None

    def apply(self, ctx: ToolContext) -> ToolContext:
        """``ctx`` with all six seams replaced by these (undeclared ones become ``None``)."""
        return replace(ctx, **{f.name: getattr(self, f.name) for f in fields(self)})


def storage_scope_id(tool_name: str, scope: StorageScope, call: CapabilityScope) -> str:
    """``tool:<name>``, ``session:<id>`` or ``personality:<id>`` (the session id without one)."""
    if scope == "tool-private":
        return f"tool:{tool_name}"
    if scope == "session":
        return f"session:{call.session_id}"
    return f"personality:{call.personality_id or call.session_id}"


def missing_backends(capabilities: ToolCapabilities, backends: CapabilityBackends) -> list[str]:
    """The declared kinds whose seam would be absent for lack of a backend (see hints)."""
    missing = []
    if capabilities.network is not None and backends.fetcher is None:
        missing.append("network")
    if capabilities.secrets is not None and backends.secrets_resolver is None:
        missing.append("secrets")
    if capabilities.storage is not None and backends.kv_store_factory is None:
        missing.append("storage")
    return missing


def resolve_capabilities(
    tool_name: str,
    capabilities: ToolCapabilities,
    scope: CapabilityScope,
    backends: CapabilityBackends,
) -> ResolvedCapabilities:
    """Build the seams ``capabilities`` declares, scoped to ``tool_name`` and ``scope``.

    Raises:
        ConfigurationError: a reach prefix cannot be made absolute.
    """
    if capabilities.is_empty:
        return ResolvedCapabilities()
    kv_store = secrets = fetch = fs = process = attachments = None
    storage = capabilities.storage
    if storage is not None and backends.kv_store_factory is not None:
        kv_store = _kv_store(
            backends.kv_store_factory,
            tool_name,
            storage_scope_id(tool_name, storage.scope, scope),
            storage.ttl_seconds_default,
        )
    if capabilities.secrets is not None and backends.secrets_resolver is not None:
        secrets = DeclaredSecrets(capabilities.secrets.refs, backends.secrets_resolver)
    if capabilities.network is not None and backends.fetcher is not None:
        from toolwire.backends.network import HostScopedFetch, resolve_allowed_hosts

        policy = scope.network_policy or backends.network_policy
        hosts = resolve_allowed_hosts(capabilities.network.allowed_hosts, policy)
        fetch = HostScopedFetch(backends.fetcher, hosts, policy)
    if capabilities.process is not None:
        process = LocalScopedProcess(
            capabilities.process.allowed_binaries,
            abort_signal=scope.abort_signal,
            default_timeout_s=backends.process_default_timeout_s,
            extra_env_allowlist=backends.process_env_allowlist,
            default_cwd=scope.working_dir,
        )
    attachment_paths: tuple[str, ...] = ()
    if capabilities.attachments is not None:
        turn = (*backends.inbound_attachments, *scope.turn_attachments)
        kinds = capabilities.attachments.kinds
        cache_dir = backends.attachment_cache_dir
        attachments = FilteredAttachments(turn, kinds, cache_dir=cache_dir)
        attachment_paths = attachment_read_dirs(turn, kinds, cache_dir=cache_dir)
    fs = _scoped_fs(capabilities, scope, backends, attachment_paths)
    return ResolvedCapabilities(
        kv_store=kv_store,
        secrets_resolver=secrets,
        scoped_fetch=fetch,
        scoped_fs=fs,
        scoped_process=process,
        attachments=attachments,
    )


def _kv_store(
    factory: Callable[..., KeyValueStore], tool: str, scope_id: str, ttl: float | None
) -> KeyValueStore:
    """The factory's store; the declared default TTL goes to the factory when it takes one
    (``KeyValueBackend.scoped`` does, so counters expire too), else a `DefaultTtlStore`."""
    if ttl is None:
        return factory(tool, scope_id)
    if _takes_ttl_default(factory):
        return factory(tool, scope_id, ttl_seconds_default=ttl)
    return DefaultTtlStore(factory(tool, scope_id), ttl)


def _takes_ttl_default(factory: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return "ttl_seconds_default" in parameters


def _scoped_fs(
    capabilities: ToolCapabilities,
    scope: CapabilityScope,
    backends: CapabilityBackends,
    attachment_paths: tuple[str, ...],
) -> ReachScopedFs | None:
    declared = capabilities.fs_reach
    if declared is None and not attachment_paths:
        return None
    base_dir = os.path.abspath(scope.working_dir or os.getcwd())
    deny = backends.always_deny
    if declared is None:  # attachments only: read just those files
        return ReachScopedFs(attachment_paths, (), deny=deny, base_dir=base_dir)
    personality: list[FsReach] = []  # memo: the personality is asked at most once per call

    def side(value: PathReach, which: str) -> tuple[str, ...]:
        if value != FROM_PERSONALITY:
            return tuple(value)
        if not personality:
            personality.append(_personality_reach(scope, backends))
        return personality[0].read if which == "read" else personality[0].write

    read = (*side(declared.read, "read"), *attachment_paths)
    write = side(declared.write, "write")
    return ReachScopedFs(read, write, deny=deny, base_dir=base_dir)


def _personality_reach(scope: CapabilityScope, backends: CapabilityBackends) -> FsReach:
    if backends.personality_fs_reach is None:
        return FsReach(read=tuple(backends.fs_read), write=tuple(backends.fs_write))
    try:
        reach = backends.personality_fs_reach(scope.personality_id)
    except Exception:
        logger.warning(
            "toolwire: personality_fs_reach(%r) failed; denying all file reach",
            scope.personality_id,
            exc_info=True,
        )
        return FsReach()
    return reach if isinstance(reach, FsReach) else FsReach()


def __getattr__(name: str) -> Any:
    """`create_backends` lives in `toolwire.backends.defaults`; importable from here too."""
    if name == "create_backends":
        from toolwire.backends.defaults import create_backends

        return create_backends
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
