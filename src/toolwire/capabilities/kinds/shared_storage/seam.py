"""The seam of the ``shared_storage`` kind: `SharedStores`, key-value stores of scopes the tool
picks from its context (memory, team and personality scopes)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from toolwire.capabilities.kinds.storage.seam import KeyValueStore

__all__ = ["SharedStores"]


@runtime_checkable
class SharedStores(Protocol):
    """Hands out the store of a shared scope: ``global``, ``personality:<id>``, ``team:<id>``,
    the call's own ``session:<id>``, or an opaque memory scope id the host chose.

    Spec 01 lets memory tools pick their scope from the context (``memory_scope_id``, else
    ``team:<team_id>`` or ``personality:<id>``); the ``storage`` kind cannot, since its scope
    is fixed when the tool is declared. Stores of one scope id are shared by every tool that
    asks for it, exactly like ``storage("personality")`` (spec 04).
    """

    def store(self, scope_id: str) -> KeyValueStore:
        """The store of ``scope_id``.

        Raises:
            CapabilityError: ``scope_id`` is empty, a tool's private scope (``tool:...``) or
                another session's (``session:...``).
        """
        ...
