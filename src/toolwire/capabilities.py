"""The six capability declarations: what a tool needs from the world.

A tool declares what it needs; the registry resolves only that, scoped, into the seams of its
`ToolContext`. An empty declaration (``ToolCapabilities()``) means "no side effects" and needs
no backends.

```python
from toolwire.capabilities import network, storage, ToolCapabilities

caps = ToolCapabilities.of(network(["api.github.com", "*.githubusercontent.com"]),
                           storage("session", ttl_seconds_default=1800))
```

Host patterns: an exact host, ``*.example.com`` (subdomains only, **not** ``example.com``
itself), or ``*`` ("whatever the personality's network policy allows").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypeAlias, get_args

from toolwire.errors import ToolDefinitionError
from toolwire.seams import AttachmentKind

__all__ = [
    "FROM_PERSONALITY",
    "AttachmentsCapability",
    "Capability",
    "FsReachCapability",
    "NetworkCapability",
    "ProcessCapability",
    "SecretsCapability",
    "StorageCapability",
    "StorageScope",
    "ToolCapabilities",
    "attachments",
    "fs_reach",
    "network",
    "process",
    "secrets",
    "storage",
]

StorageScope: TypeAlias = Literal["tool-private", "session", "personality"]
FROM_PERSONALITY: Literal["from-personality"] = "from-personality"
"""An ``fs_reach`` side that defers to the personality's derived reach."""

PathReach: TypeAlias = tuple[str, ...] | Literal["from-personality"]
_HOST_PATTERN = re.compile(
    r"^(\*|(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?|\[[0-9A-Fa-f:.]+\])$"
)


def _strings(what: str, values: Iterable[str]) -> tuple[str, ...]:
    if isinstance(values, str):
        raise ToolDefinitionError(
            f"{what} takes a list of strings, not a single string: [{values!r}]"
        )
    out = tuple(values)
    for value in out:
        if not isinstance(value, str) or not value.strip():
            raise ToolDefinitionError(f"{what} entries must be non-empty strings, got {value!r}")
    return out


@dataclass(frozen=True, kw_only=True, slots=True)
class NetworkCapability:
    """HTTP(S) to these hosts only (exact, ``*.suffix`` or ``*``)."""

    allowed_hosts: tuple[str, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class SecretsCapability:
    """These secret refs: exact refs, or segment-wise prefix grants ending in ``/*``."""

    refs: tuple[str, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class StorageCapability:
    """A key-value store in one scope: ``tool:<name>``, ``session:<id>`` or ``personality:<id>``."""

    scope: StorageScope
    kind: Literal["kv"] = "kv"
    ttl_seconds_default: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class FsReachCapability:
    """File reach: absolute path prefixes, or ``"from-personality"``, per side."""

    read: PathReach = ()
    write: PathReach = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class ProcessCapability:
    """Child processes of these binaries only (exact strings, or ``*``)."""

    allowed_binaries: tuple[str, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class AttachmentsCapability:
    """The turn's attachments of these kinds (or ``*`` for all)."""

    kinds: tuple[AttachmentKind, ...] | Literal["*"]


Capability: TypeAlias = (
    NetworkCapability
    | SecretsCapability
    | StorageCapability
    | FsReachCapability
    | ProcessCapability
    | AttachmentsCapability
)


def network(allowed_hosts: Iterable[str]) -> NetworkCapability:
    """Declare HTTP(S) access to ``allowed_hosts``.

    Raises:
        ToolDefinitionError: a pattern is not a host, ``*.suffix`` or ``*``.
    """
    hosts = _strings("network(allowed_hosts)", allowed_hosts)
    for host in hosts:
        if not _HOST_PATTERN.match(host):
            raise ToolDefinitionError(
                f"network(allowed_hosts): {host!r} is not a host pattern; use 'api.example.com', "
                "'*.example.com' (subdomains only) or '*'"
            )
    return NetworkCapability(allowed_hosts=tuple(h.lower().rstrip(".") for h in hosts))


def secrets(refs: Iterable[str]) -> SecretsCapability:
    """Declare the secret refs the tool may resolve (``providers/exa/apiKey``, ``providers/*``)."""
    return SecretsCapability(refs=_strings("secrets(refs)", refs))


def storage(
    scope: StorageScope, kind: Literal["kv"] = "kv", ttl_seconds_default: float | None = None
) -> StorageCapability:
    """Declare a key-value store in ``scope``; ``ttl_seconds_default`` applies when `set` has none.

    Raises:
        ToolDefinitionError: unknown scope or kind, or a TTL that is not positive.
    """
    if scope not in get_args(StorageScope):
        raise ToolDefinitionError(
            f"storage(scope={scope!r}): scope must be one of {', '.join(get_args(StorageScope))}"
        )
    if kind != "kv":
        raise ToolDefinitionError(f"storage(kind={kind!r}): 'kv' is the only storage kind")
    if ttl_seconds_default is not None and not ttl_seconds_default > 0:
        raise ToolDefinitionError(
            f"storage(ttl_seconds_default={ttl_seconds_default!r}) must be a positive number"
        )
    return StorageCapability(scope=scope, kind=kind, ttl_seconds_default=ttl_seconds_default)


def _reach(side: str, value: Iterable[str] | str) -> PathReach:
    if value == FROM_PERSONALITY:
        return FROM_PERSONALITY
    return _strings(f"fs_reach({side})", value)


def fs_reach(
    read: Iterable[str] | Literal["from-personality"] = (),
    write: Iterable[str] | Literal["from-personality"] = (),
) -> FsReachCapability:
    """Declare file reach: path prefixes per side, or ``"from-personality"``."""
    return FsReachCapability(read=_reach("read", read), write=_reach("write", write))


def process(allowed_binaries: Iterable[str]) -> ProcessCapability:
    """Declare the binaries the tool may spawn (``"git"``, ``"/usr/bin/python3"``, or ``"*"``)."""
    return ProcessCapability(
        allowed_binaries=_strings("process(allowed_binaries)", allowed_binaries)
    )


def attachments(kinds: Iterable[AttachmentKind] | Literal["*"]) -> AttachmentsCapability:
    """Declare the attachment kinds the tool may open (``image``, ``file``, ``audio`` or ``*``)."""
    if kinds == "*":
        return AttachmentsCapability(kinds="*")
    values = _strings("attachments(kinds)", kinds)
    allowed = get_args(AttachmentKind)
    for kind in values:
        if kind not in allowed:
            raise ToolDefinitionError(
                f"attachments(kinds): {kind!r} is not one of {', '.join(allowed)} or '*'"
            )
    return AttachmentsCapability(kinds=values)  # type: ignore[arg-type,unused-ignore]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCapabilities:
    """The full declaration of a tool: each kind at most once; all ``None`` = no side effects."""

    network: NetworkCapability | None = None
    secrets: SecretsCapability | None = None
    storage: StorageCapability | None = None
    fs_reach: FsReachCapability | None = None
    process: ProcessCapability | None = None
    attachments: AttachmentsCapability | None = None

    @classmethod
    def of(cls, *declarations: Capability) -> ToolCapabilities:
        """Combine declarations made with `network`, `storage`, ...

        Raises:
            ToolDefinitionError: the same kind is declared twice, or an item is not a declaration.
        """
        slots: dict[str, Capability] = {}
        for declaration in declarations:
            name = _KIND_BY_TYPE.get(type(declaration))
            if name is None:
                raise ToolDefinitionError(
                    f"{declaration!r} is not a capability declaration; build one with "
                    "network(), secrets(), storage(), fs_reach(), process() or attachments()"
                )
            if name in slots:
                raise ToolDefinitionError(f"capability {name!r} is declared twice; merge them")
            slots[name] = declaration
        return cls(**slots)  # type: ignore[arg-type]

    @property
    def declared(self) -> tuple[str, ...]:
        """Names of the declared kinds, in a fixed order."""
        return tuple(name for name in _KINDS if getattr(self, name) is not None)

    @property
    def is_empty(self) -> bool:
        """True when nothing is declared: the tool has no side effects and needs no backends."""
        return (
            self.network is None
            and self.secrets is None
            and self.storage is None
            and self.fs_reach is None
            and self.process is None
            and self.attachments is None
        )


_KINDS = ("network", "secrets", "storage", "fs_reach", "process", "attachments")
_KIND_BY_TYPE: dict[type, str] = {
    NetworkCapability: "network",
    SecretsCapability: "secrets",
    StorageCapability: "storage",
    FsReachCapability: "fs_reach",
    ProcessCapability: "process",
    AttachmentsCapability: "attachments",
}
