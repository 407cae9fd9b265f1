"""`FoundTools`: the deferred tools a session has found, shared by every replica.

``tool_search`` adds what it returns; the session's next snapshot offers those tools. The
names live in the capability backends' key-value store, in the ``session:<id>`` scope (keys
``found:<name>``), so every replica serving the session sees them; without a store, in this
process's memory. A session of an authenticated principal is keyed by the principal too
(`toolwire.principals.Principal.scoped`): another principal's session of the same id finds
nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from toolwire.capabilities.seams import KeyValueStore
from toolwire.principals import LOCAL, Principal

__all__ = ["FOUND_PREFIX", "FoundTools"]

FOUND_PREFIX = "found:"
_STORE_TOOL = "tool_search"


class FoundTools:
    """The found deferred tools of each session.

    Args:
        kv_store_factory: The backends' ``kv_store_factory``; ``None``: kept in memory.
        ttl_seconds: How long a found tool stays found without being found again (``None``:
            as long as the store keeps the session).
    """

    def __init__(
        self,
        kv_store_factory: Callable[[str, str], KeyValueStore] | None = None,
        *,
        ttl_seconds: float | None = None,
    ) -> None:
        self._factory = kv_store_factory
        self._ttl = ttl_seconds
        self._memory: dict[str, set[str]] = {}

    @staticmethod
    def scope(session_id: str, principal: Principal = LOCAL) -> str:
        """The key of ``session_id`` for ``principal``."""
        return principal.scoped(session_id)

    async def get(self, session_id: str, principal: Principal = LOCAL) -> frozenset[str]:
        """The names found in the session."""
        key = self.scope(session_id, principal)
        if self._factory is None:
            return frozenset(self._memory.get(key, ()))
        store = self._factory(_STORE_TOOL, f"session:{key}")
        return frozenset(k[len(FOUND_PREFIX) :] for k in await store.list(FOUND_PREFIX))

    async def add(
        self, session_id: str, names: Iterable[str], principal: Principal = LOCAL
    ) -> None:
        """Mark ``names`` found in the session."""
        key = self.scope(session_id, principal)
        if self._factory is None:
            self._memory.setdefault(key, set()).update(names)
            return
        store = self._factory(_STORE_TOOL, f"session:{key}")
        for name in names:
            await store.set(FOUND_PREFIX + name, "1", ttl_seconds=self._ttl)
