"""`ToolCapabilities`: a tool's whole declaration, at most one per kind."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

from toolwire.capabilities.kind import Capability, CapabilityKind, kind_name
from toolwire.capabilities.kinds.attachments.kind import AttachmentsCapability
from toolwire.capabilities.kinds.fs_reach.kind import FsReachCapability
from toolwire.capabilities.kinds.network.kind import NetworkCapability
from toolwire.capabilities.kinds.process.kind import ProcessCapability
from toolwire.capabilities.kinds.secrets.kind import SecretsCapability
from toolwire.capabilities.kinds.storage.kind import StorageCapability
from toolwire.errors import ToolDefinitionError

__all__ = ["ToolCapabilities"]

D = TypeVar("D", bound=Capability)


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCapabilities:
    """The full declaration of a tool: each kind at most once; nothing = no side effects.

    The six kinds of spec 01 have an attribute each (``caps.storage``, ...); declarations of
    other kinds are kept in ``others`` and read with ``caps.get(KIND)``, which works for every
    kind. Build one with `of`.
    """

    network: NetworkCapability | None = None
    secrets: SecretsCapability | None = None
    storage: StorageCapability | None = None
    fs_reach: FsReachCapability | None = None
    process: ProcessCapability | None = None
    attachments: AttachmentsCapability | None = None
    others: tuple[Capability, ...] = ()

    def __post_init__(self) -> None:
        if self.others:
            object.__setattr__(self, "others", tuple(self.others))
            names = [kind_name(declaration) for declaration in self.others]
            if None in names or set(names) & set(_SPEC_KINDS) or len(set(names)) != len(names):
                raise ToolDefinitionError(
                    "ToolCapabilities(others=...) holds one declaration per kind beyond spec 01's "
                    "six; build it with ToolCapabilities.of(...)"
                )

    @classmethod
    def of(cls, *declarations: Capability) -> ToolCapabilities:
        """Combine declarations made with `network`, `storage`, ... (or any kind's factory).

        Raises:
            ToolDefinitionError: the same kind is declared twice, or an item is not a declaration.
        """
        spec: dict[str, Capability] = {}
        others: list[Capability] = []
        seen: set[str] = set()
        for declaration in declarations:
            name = kind_name(declaration)
            if name is None:
                raise ToolDefinitionError(
                    f"{declaration!r} is not a capability declaration; build one with "
                    "network(), secrets(), storage(), fs_reach(), process(), attachments() or "
                    "another CapabilityKind's factory"
                )
            if name in seen:
                raise ToolDefinitionError(f"capability {name!r} is declared twice; merge them")
            seen.add(name)
            if name in _SPEC_KINDS:
                spec[name] = declaration
            else:
                others.append(declaration)
        return cls(**spec, others=tuple(others))  # type: ignore[arg-type]

    def get(self, kind: CapabilityKind[D, Any]) -> D | None:
        """The declaration of ``kind``, or ``None`` when the tool did not declare it."""
        if kind.name in _SPEC_KINDS:
            found = getattr(self, kind.name)
            return found if isinstance(found, kind.declaration) else None
        for declaration in self.others:
            if isinstance(declaration, kind.declaration):
                return declaration
        return None

    @property
    def declared(self) -> tuple[str, ...]:
        """Names of the declared kinds: spec 01's in a fixed order, then the others'."""
        names = [name for name in _SPEC_KINDS if getattr(self, name) is not None]
        names.extend(kind_name(declaration) or "?" for declaration in self.others)
        return tuple(names)

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
            and not self.others
        )


_SPEC_KINDS = tuple(f.name for f in fields(ToolCapabilities) if f.name != "others")
