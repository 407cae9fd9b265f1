"""The ``storage`` kind: a key-value store in one scope, through ``ctx.kv_store``.

The backends' ``kv_store_factory(tool_name, scope_id)`` is called with:

| scope | scope id |
| --- | --- |
| ``tool-private`` | ``tool:<tool name>`` |
| ``session`` | ``session:<session id>`` |
| ``personality`` | ``personality:<personality id>``, or ``personality:<session id>`` without one |

A ``personality`` scope belongs to the call's principal as well: an authenticated credential's
is ``personality:<id>~p-…`` (`toolwire.principals.Principal.scoped`), so two credentials never
share it; `toolwire.principals.LOCAL`'s is unchanged. A ``session`` scope follows the session,
which a server gives each credential its own of (docs/mcp.md, "Who owns what").

A declared ``ttl_seconds_default`` goes to a factory that takes ``ttl_seconds_default=`` (like
``KeyValueBackend.scoped``); any other factory's store is wrapped in a ``DefaultTtlStore``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, get_args

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution
from toolwire.capabilities.kinds.storage.seam import KeyValueStore
from toolwire.errors import ToolDefinitionError

if TYPE_CHECKING:
    from toolwire.capabilities._backends import CapabilityScope

__all__ = [
    "STORAGE",
    "KeyValueStore",
    "StorageCapability",
    "StorageScope",
    "storage",
    "storage_scope_id",
]

StorageScope: TypeAlias = Literal["tool-private", "session", "personality"]
"""Who shares a declared store: the tool alone, the session's calls, or the personality's."""


@dataclass(frozen=True, kw_only=True, slots=True)
class StorageCapability(Capability):
    """A key-value store in one scope: ``tool:<name>``, ``session:<id>`` or ``personality:<id>``."""

    scope: StorageScope
    kind: Literal["kv"] = "kv"
    ttl_seconds_default: float | None = None


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


def storage_scope_id(tool_name: str, scope: StorageScope, call: CapabilityScope) -> str:
    """``tool:<name>``, ``session:<id>`` or ``personality:<id>`` (the session id without one)."""
    if scope == "tool-private":
        return f"tool:{tool_name}"
    if scope == "session":
        return f"session:{call.session_id}"
    return call.principal.scoped(f"personality:{call.personality_id or call.session_id}")


def _resolve(declared: StorageCapability, call: Resolution) -> KeyValueStore | None:
    factory: Callable[..., KeyValueStore] | None = call.backends.kv_store_factory
    if factory is None:
        return None
    tool = call.tool_name
    scope_id = storage_scope_id(tool, declared.scope, call.scope)
    ttl = declared.ttl_seconds_default
    if ttl is None:
        return factory(tool, scope_id)
    if _takes_ttl_default(factory):  # KeyValueBackend.scoped does, so counters expire too
        return factory(tool, scope_id, ttl_seconds_default=ttl)
    from toolwire.capabilities.kinds.storage._default_ttl import DefaultTtlStore

    return DefaultTtlStore(factory(tool, scope_id), ttl)


def _takes_ttl_default(factory: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return "ttl_seconds_default" in parameters


STORAGE: CapabilityKind[StorageCapability, KeyValueStore] = CapabilityKind(
    name="storage",
    declaration=StorageCapability,
    resolve=_resolve,
    context_field="kv_store",
    backend=lambda backends: backends.kv_store_factory,
    setup_hint="give CapabilityBackends a kv_store_factory, e.g. "
    "create_backends(kv_url='sqlite:///.toolwire/state.db')",
)
"""``storage(scope)`` → ``ctx.kv_store``; needs ``CapabilityBackends.kv_store_factory``."""
