"""`FactorySharedStores`: the ``shared_storage`` seam over a ``kv_store_factory``."""

from __future__ import annotations

from collections.abc import Callable

from toolwire.capabilities.kinds.storage.seam import KeyValueStore
from toolwire.errors import CapabilityError

__all__ = ["FactorySharedStores", "check_shared_scope"]


def check_shared_scope(scope_id: str, session_id: str) -> str:
    """``scope_id`` when a tool may reach it through the ``shared_storage`` seam.

    Raises:
        CapabilityError: it is empty or not text, a tool's private scope (``tool:...``), or a
            session scope other than ``session:<session_id>``.
    """
    if not isinstance(scope_id, str) or not scope_id.strip():
        raise CapabilityError("SCOPE_NOT_SHARED: a shared scope id must be a non-empty string")
    if scope_id.startswith("tool:"):
        raise CapabilityError(
            f"SCOPE_NOT_SHARED: {scope_id!r} is a tool's private scope; declare "
            "storage('tool-private') to reach your own"
        )
    if scope_id.startswith("session:") and scope_id != f"session:{session_id}":
        raise CapabilityError(f"SCOPE_NOT_SHARED: {scope_id!r} is another session's scope")
    return scope_id


class FactorySharedStores:
    """`SharedStores` for one call: ``factory(tool_name, scope_id)`` for each allowed scope.

    Args:
        factory: The backends' ``kv_store_factory``.
        tool_name: Who the stores are for: the tool, or its declared group (a backend with
            ``isolate_tools`` splits partitions by it).
        session_id: The call's session: its own ``session:<id>`` is allowed, no other.
    """

    __slots__ = ("_factory", "_session_id", "_tool_name")

    def __init__(
        self, factory: Callable[[str, str], KeyValueStore], *, tool_name: str, session_id: str
    ) -> None:
        self._factory = factory
        self._tool_name = tool_name
        self._session_id = session_id

    def store(self, scope_id: str) -> KeyValueStore:
        """The store of ``scope_id`` (see `check_shared_scope` for what is refused)."""
        return self._factory(self._tool_name, check_shared_scope(scope_id, self._session_id))

    def __repr__(self) -> str:
        return f"FactorySharedStores(tool={self._tool_name!r}, session={self._session_id!r})"
