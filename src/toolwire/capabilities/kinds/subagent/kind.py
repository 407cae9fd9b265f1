"""The ``subagent`` kind: sub-agents run for the call, through ``ctx.seam(SUBAGENT)``.

The kind is not in spec 01, so its seam reaches the tool as ``ctx.seam(SUBAGENT)`` (a
`ScopedSubagents`). Its backend is the host's ``CapabilityBackends.kind_backends["subagent"]``:
anything with ``bind(call) -> ScopedSubagents`` (a `SubagentHost`), such as
`toolwire.capabilities.kinds.subagent.Delegation`, which holds the runner, the toolsets a sub-agent
may use and its limits. Without that backend the seam is ``None`` and the ``task`` tool answers
``not_available``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution
from toolwire.capabilities.kinds.subagent.seam import ScopedSubagents
from toolwire.errors import ConfigurationError

__all__ = ["SUBAGENT", "ScopedSubagents", "SubagentCapability", "SubagentHost", "subagent"]

SUBAGENT_BACKEND = "subagent"
"""The key of the backend in ``CapabilityBackends.kind_backends``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentCapability(Capability):
    """Run sub-agents: whatever runner, toolsets and limits the host's backend sets."""


def subagent() -> SubagentCapability:
    """Declare that the tool runs sub-agents (through the host's ``subagent`` backend)."""
    return SubagentCapability()


@runtime_checkable
class SubagentHost(Protocol):
    """The ``subagent`` backend: binds sub-agent runs to one call."""

    def bind(self, call: Resolution) -> ScopedSubagents:
        """The seam for ``call`` (its abort signal, its backends, its tool)."""
        ...


def _backend(backends: object) -> object | None:
    kind_backends = getattr(backends, "kind_backends", None)
    return None if kind_backends is None else kind_backends.get(SUBAGENT_BACKEND)


def _resolve(declared: SubagentCapability, call: Resolution) -> ScopedSubagents | None:
    host = _backend(call.backends)
    if host is None:
        return None
    if not isinstance(host, SubagentHost):
        raise ConfigurationError(
            "kind_backends['subagent'] must have bind(call) "
            f"(e.g. toolwire.capabilities.kinds.subagent.Delegation), "
            f"got {type(host).__name__}"
        )
    return host.bind(call)


SUBAGENT: CapabilityKind[SubagentCapability, ScopedSubagents] = CapabilityKind(
    name="subagent",
    declaration=SubagentCapability,
    resolve=_resolve,
    backend=_backend,
    setup_hint="give CapabilityBackends kind_backends={'subagent': Delegation(runner=...)} "
    "(toolwire.capabilities.kinds.subagent; see docs/agents.md)",
)
"""``subagent()`` → ``ctx.seam(SUBAGENT)``; needs ``kind_backends["subagent"]``."""
