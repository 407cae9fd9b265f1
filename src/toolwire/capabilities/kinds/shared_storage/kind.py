"""The ``shared_storage`` kind: key-value stores of scopes the tool picks from its context.

``storage(scope)`` fixes the scope when the tool is declared. Memory and board tools need the
scope the *context* names instead (spec 01: ``memory_scope_id``, else ``team:<team_id>``, else
``personality:<id>`` or ``global``), so they declare ``shared_storage()`` and ask the seam,
``ctx.seam(SHARED_STORAGE)``, for the store of the scope id they derive. The seam refuses
``tool:...`` (another tool's private data) and any session but the call's own. It is built
from the same ``kv_store_factory`` as ``storage``: a scope id names one partition, shared by
every tool asking for it, whichever kind they declared. On a backend that isolates tools
(``create_backends(kv_isolate_tools=True)``), tools declaring one ``group`` still share their
stores: ``shared_storage(group="memory")`` puts ``memory_read`` and ``memory_write`` in one
partition (without a group, each tool is its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution
from toolwire.capabilities.kinds.shared_storage.seam import SharedStores
from toolwire.errors import ToolDefinitionError

__all__ = ["SHARED_STORAGE", "SharedStorageCapability", "SharedStores", "shared_storage"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SharedStorageCapability(Capability):
    """Key-value stores of shared scopes (``global``, ``personality:<id>``, ``team:<id>``);
    ``group`` names the partition owner on a backend that isolates tools."""

    group: str | None = None


def shared_storage(group: str | None = None) -> SharedStorageCapability:
    """Declare key-value stores of the shared scopes the tool derives from its context.

    Args:
        group: Tools declaring the same group share their stores even on a backend that
            isolates tools (default: the tool's own name).

    Raises:
        ToolDefinitionError: ``group`` is not a non-empty string.
    """
    if group is not None and (not isinstance(group, str) or not group.strip()):
        raise ToolDefinitionError(f"shared_storage(group={group!r}) must be a non-empty string")
    return SharedStorageCapability(group=group)


def _resolve(declared: SharedStorageCapability, call: Resolution) -> SharedStores | None:
    factory = call.backends.kv_store_factory
    if factory is None:
        return None
    from toolwire.capabilities.kinds.shared_storage._stores import FactorySharedStores

    owner = declared.group or call.tool_name
    return FactorySharedStores(factory, tool_name=owner, session_id=call.scope.session_id)


SHARED_STORAGE: CapabilityKind[SharedStorageCapability, SharedStores] = CapabilityKind(
    name="shared_storage",
    declaration=SharedStorageCapability,
    resolve=_resolve,
    backend=lambda backends: backends.kv_store_factory,
    setup_hint="give CapabilityBackends a kv_store_factory, e.g. "
    "create_backends(kv_url='sqlite:///.toolwire/state.db')",
)
"""``shared_storage()`` → ``ctx.seam(SHARED_STORAGE)``; needs ``kv_store_factory``."""
