"""The physical key-value backend: one store holding every namespace.

A `KeyValueBackend` owns the connection (a file, a pool, a client). Tools never see it: the
resolver calls `KeyValueBackend.scoped` (the ``kv_store_factory``) and hands the tool the
returned `KeyValueStore`, which can only reach its own namespace.

The namespace follows spec 04's scope table (`Namespace.of`): a ``session:<id>`` or
``personality:<id>`` scope is one partition shared by every tool asking for it, a
``tool:<name>`` scope belongs to its tool alone. A backend created with ``isolate_tools=True``
also splits every shared scope per tool.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Protocol

from anyio.abc import AsyncResource

from toolwire.stores._namespace import (
    INT64_MAX,
    INT64_MIN,
    TOOL_SCOPE_PREFIX,
    Namespace,
    ValueStore,
    check_counter_range,
    check_isolate_tools,
    parse_counter,
)

if TYPE_CHECKING:
    from toolwire.capabilities.seams import KeyValueStore

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "TOOL_SCOPE_PREFIX",
    "KeyValueBackend",
    "KeyValueStoreFactory",
    "Namespace",
    "check_counter_range",
    "check_isolate_tools",
    "parse_counter",
]


class KeyValueStoreFactory(Protocol):
    """What the capability resolver calls to get a tool's store (``kv_store_factory``)."""

    def __call__(
        self, tool: str, scope_id: str, *, ttl_seconds_default: float | None = None
    ) -> KeyValueStore:
        """The store ``tool`` gets for ``scope_id``; the default TTL applies to TTL-less sets.

        Spec 04's ``kvStoreFactory(toolName, scopeId)``: tools asking for one ``session:<id>``
        or ``personality:<id>`` share its keys; ``tool:<name>`` is the tool's own.
        """
        ...


class KeyValueBackend(AsyncResource, ValueStore):
    """A physical key-value store partitioned into namespaces (`Namespace`).

    Use it as an async context manager (or call `aclose`) so files and connections are
    released. Pass `scoped` to the capability resolver as its ``kv_store_factory``:

    ```python
    async with SqliteKeyValueBackend("state/kv.db") as backend:
        store = backend.scoped("usage_counter", "tool:usage_counter")
        await store.increment("questions")
    ```

    Subclasses take ``isolate_tools`` as a keyword and pass it to ``super().__init__``; they
    implement the ``*_value``/``list_keys`` primitives declared by `ValueStore`, which the
    scoped store calls after validating every argument and resolving the TTL.
    """

    _isolate_tools: bool = False  # also for subclasses written before the option existed

    def __init__(self, *, isolate_tools: bool = False) -> None:
        """Validate and keep the partitioning option.

        Args:
            isolate_tools: Split ``session`` and ``personality`` scopes per tool too, instead
                of sharing them between the tools of a session or personality (spec 04).

        Raises:
            ConfigurationError: ``isolate_tools`` is not a bool.
        """
        self._isolate_tools = check_isolate_tools(isolate_tools)

    @property
    def isolate_tools(self) -> bool:
        """Whether shared scopes are split per tool (``False``: shared, as spec 04 says)."""
        return self._isolate_tools

    def scoped(
        self, tool: str, scope_id: str, *, ttl_seconds_default: float | None = None
    ) -> KeyValueStore:
        """A store that reads and writes only the namespace ``tool`` gets for ``scope_id``.

        That namespace is `Namespace.of` ``(tool, scope_id)``: a ``session:<id>`` or
        ``personality:<id>`` scope is shared by every tool asking for it (unless the backend
        was created with ``isolate_tools=True``); a ``tool:<name>`` scope is the tool's own.

        Args:
            tool: The tool's name.
            scope_id: The resolved scope (``tool:<name>``, ``session:<id>``,
                ``personality:<id>``).
            ttl_seconds_default: Expiry applied when `set` gets no ``ttl_seconds``; a per-call
                TTL wins. ``None`` means keys live until deleted.

        Raises:
            StoreError: ``tool`` or ``scope_id`` is not a non-empty string, or the default
                TTL is not a positive finite number.
        """
        from toolwire.stores._scoped import ScopedKeyValueStore

        return ScopedKeyValueStore(
            self, tool=tool, scope_id=scope_id, ttl_seconds_default=ttl_seconds_default
        )

    @abstractmethod
    async def purge_expired(self) -> int:
        """Delete expired entries now; how many were removed (0 where expiry is native)."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release files and connections; the backend is unusable afterwards."""

    def _repr_arguments(self) -> list[str]:
        """What `repr` shows between the parentheses, before ``isolate_tools``."""
        return []

    def __repr__(self) -> str:
        arguments = self._repr_arguments()
        if self._isolate_tools:
            arguments.append("isolate_tools=True")
        return f"{type(self).__name__}({', '.join(arguments)})"
