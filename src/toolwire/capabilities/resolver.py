"""Capability resolution: a tool's declaration + the backends → the seams on its `ToolContext`.

You build one `CapabilityBackends` (or let `create_backends` do it) and give it to the
registry. For every call, `resolve_capabilities` loops over the table of kinds
(`toolwire.capabilities.KINDS`, then the kinds of any other declarations) and builds **only
what the tool declared**, scoped to the call, with each kind's own ``resolve``:

| declared | seam | needs |
| --- | --- | --- |
| ``storage`` | `KeyValueStore` for ``tool:<name>``, ``session:<id>`` or ``personality:<id>`` |
``kv_store_factory`` |
| ``secrets`` | ``DeclaredSecrets`` over the declared refs | ``secrets_resolver`` |
| ``network`` | ``HostScopedFetch`` over the declared hosts, narrowed by the policy | ``fetcher`` |
| ``fs_reach`` | ``ReachScopedFs`` over the declared (or personality's) prefixes | nothing |
| ``process`` | ``LocalScopedProcess`` over the declared binaries, owned by the personality |
``processes`` |
| ``attachments`` | ``FilteredAttachments`` of the declared kinds | nothing |

A declared seam whose backend is missing is left ``None`` (the tool answers ``not_available``);
`missing_backends` names them up front. Seams the tool did not declare are always ``None``,
even when the context passed in carried some.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar, cast

from toolwire.capabilities._backends import CapabilityBackends, CapabilityScope, FsReach
from toolwire.capabilities._declarations import ToolCapabilities
from toolwire.capabilities.kind import (
    EXTRA_SEAMS_FIELD,
    SPEC_SEAM_FIELDS,
    CapabilityKind,
    Resolution,
    kind_of,
)
from toolwire.capabilities.kinds import KINDS
from toolwire.capabilities.kinds.storage._default_ttl import DefaultTtlStore
from toolwire.capabilities.kinds.storage.kind import storage_scope_id
from toolwire.capabilities.seams import (
    KeyValueStore,
    ScopedAttachments,
    ScopedFetch,
    ScopedFs,
    ScopedProcess,
    ScopedSecrets,
)
from toolwire.context import ToolContext

__all__ = [
    "BACKEND_SETUP_HINTS",
    "CapabilityBackends",
    "CapabilityScope",
    "DefaultTtlStore",
    "FsReach",
    "ResolvedCapabilities",
    "kinds_for",
    "missing_backends",
    "resolve_capabilities",
    "storage_scope_id",
]

S = TypeVar("S")

BACKEND_SETUP_HINTS: Mapping[str, str] = MappingProxyType(
    {kind.name: kind.setup_hint for kind in KINDS if kind.setup_hint is not None}
)
"""For each built-in kind `missing_backends` can report, how to provide its backend."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ResolvedCapabilities:
    """The seams built for one call; ``None`` where not declared or not available.

    The six of spec 01 have a field each; other kinds' seams are in ``extra_seams`` by kind
    name (``None`` when there are none). `get` reads any kind's seam.
    """

    kv_store: KeyValueStore | None = None
    secrets_resolver: ScopedSecrets | None = None
    scoped_fetch: ScopedFetch | None = None
    scoped_fs: ScopedFs | None = None
    scoped_process: ScopedProcess | None = None
    attachments: ScopedAttachments | None = None
    extra_seams: Mapping[str, object] | None = None

    def get(self, kind: CapabilityKind[Any, S]) -> S | None:
        """The seam of ``kind``, or ``None``."""
        if kind.context_field is not None:
            return cast("S | None", getattr(self, kind.context_field))
        return (
            None if self.extra_seams is None else cast("S | None", self.extra_seams.get(kind.name))
        )

    def apply(self, ctx: ToolContext) -> ToolContext:
        """``ctx`` with every seam replaced by these (undeclared ones become ``None``)."""
        return ctx.derive(**{name: getattr(self, name) for name in _FIELDS})


_FIELDS = (*SPEC_SEAM_FIELDS, EXTRA_SEAMS_FIELD)


def kinds_for(capabilities: ToolCapabilities) -> tuple[CapabilityKind[Any, Any], ...]:
    """The kinds the resolver consults for ``capabilities``: the table `KINDS`, then the kinds
    of its declarations beyond it (``capabilities.others``)."""
    if not capabilities.others:
        return KINDS
    extra = (kind_of(declaration) for declaration in capabilities.others)
    return (*KINDS, *(kind for kind in extra if kind is not None and kind not in KINDS))


def missing_backends(capabilities: ToolCapabilities, backends: CapabilityBackends) -> list[str]:
    """The declared kinds whose seam would be absent for lack of a backend (see the hints)."""
    return [
        kind.name
        for kind in kinds_for(capabilities)
        if capabilities.get(kind) is not None and not kind.backend_present(backends)
    ]


def resolve_capabilities(
    tool_name: str,
    capabilities: ToolCapabilities,
    scope: CapabilityScope,
    backends: CapabilityBackends,
) -> ResolvedCapabilities:
    """Build the seams ``capabilities`` declares, scoped to ``tool_name`` and ``scope``.

    Each kind of `kinds_for` that the tool declared (or that its other declarations imply)
    and whose backend is present resolves its seam.

    Raises:
        ConfigurationError: a reach prefix cannot be made absolute.
    """
    if capabilities.is_empty:
        return _NOTHING
    call = Resolution(
        tool_name=tool_name, capabilities=capabilities, scope=scope, backends=backends
    )
    seams: dict[str, Any] = {}
    extra: dict[str, object] = {}
    for kind in kinds_for(capabilities):
        declaration = capabilities.get(kind)
        if declaration is None and kind.implied is not None:
            declaration = kind.implied(call)
        if declaration is None or not kind.backend_present(backends):
            continue
        seam = kind.resolve(declaration, call)
        if seam is None:
            continue
        if kind.context_field is not None:
            seams[kind.context_field] = seam
        else:
            extra[kind.name] = seam
    return ResolvedCapabilities(**seams, extra_seams=extra or None)


_NOTHING = ResolvedCapabilities()
