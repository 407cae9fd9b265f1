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

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

from toolwire.errors import ConfigurationError, StoreError

if TYPE_CHECKING:
    from toolwire.seams import KeyValueStore

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

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_CANONICAL_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
TOOL_SCOPE_PREFIX = "tool:"
"""How a tool-private scope id starts (``tool:<name>``); every other scope id is shared."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Namespace:
    """One partition of a backend: an owning tool (or none) and a resolved scope id.

    ``tool`` is the empty string for a partition shared by every tool (a ``session:<id>`` or
    ``personality:<id>`` scope); otherwise it names the one tool that reaches the partition.
    Backends store ``tool`` and ``scope_id`` as separate columns (or length-prefixed key
    components), so no key, tool name or scope id, whatever separators it holds, can reach
    another namespace. Tool names are never empty, so a shared partition cannot collide with a
    tool's own. Build one with `Namespace.of`.
    """

    tool: str
    scope_id: str

    @classmethod
    def of(cls, tool: str, scope_id: str, *, isolate_tools: bool = False) -> Namespace:
        """The partition ``tool`` reaches when it asks for ``scope_id`` (spec 04's scope table).

        - ``tool:<name>`` (tool-private): the tool's own partition. It keeps the asking tool's
          name, so a tool handed another tool's private scope id gets an empty partition of
          its own, never the other tool's keys.
        - any other scope id (``session:<id>``, ``personality:<id>``): one partition shared by
          every tool asking for that scope id, unless ``isolate_tools`` splits it per tool.

        Different scope ids are always different partitions.
        """
        owned = isolate_tools or scope_id.startswith(TOOL_SCOPE_PREFIX)
        return cls(tool=tool if owned else "", scope_id=scope_id)

    @property
    def shared(self) -> bool:
        """Whether every tool asking for `scope_id` reaches this partition."""
        return not self.tool


def check_isolate_tools(value: object) -> bool:
    """``value`` when it is a bool.

    Raises:
        ConfigurationError: it is anything else (``"true"``, ``1``, ``None``...).
    """
    if not isinstance(value, bool):
        raise ConfigurationError(
            f"isolate_tools must be True or False, got {value!r} ({type(value).__name__}); "
            "pass isolate_tools=True to split session and personality storage per tool, or "
            "leave it out to share it as spec 04 says"
        )
    return value


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


def parse_counter(value: str, key: str) -> int:
    """The integer a counter holds, in the canonical form Redis ``INCRBY`` accepts.

    Raises:
        StoreError: ``value`` is not ``0`` or ``-?[1-9][0-9]*`` within 64 bits.
    """
    if _CANONICAL_INTEGER.fullmatch(value) is None:
        raise StoreError(
            f"increment({key!r}): the stored value is not an integer; increment only keys "
            "holding a decimal integer such as '42' (or delete the key first)"
        )
    number = int(value)
    if not INT64_MIN <= number <= INT64_MAX:
        raise StoreError(f"increment({key!r}): the stored value does not fit in 64 bits")
    return number


def check_counter_range(result: int, key: str) -> int:
    """``result`` when it fits a signed 64-bit integer.

    Raises:
        StoreError: the increment overflowed.
    """
    if not INT64_MIN <= result <= INT64_MAX:
        raise StoreError(f"increment({key!r}) would overflow a signed 64-bit integer")
    return result


class KeyValueBackend(ABC):
    """A physical key-value store partitioned into namespaces (`Namespace`).

    Use it as an async context manager (or call `aclose`) so files and connections are
    released. Pass `scoped` to the capability resolver as its ``kv_store_factory``:

    ```python
    async with SqliteKeyValueBackend("state/kv.db") as backend:
        store = backend.scoped("usage_counter", "tool:usage_counter")
        await store.increment("questions")
    ```

    Subclasses take ``isolate_tools`` as a keyword and pass it to ``super().__init__``; they
    implement the ``*_value``/``list_keys`` primitives, which the scoped store calls after
    validating every argument and resolving the TTL.
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
        from toolwire.backends.kv.scoped import ScopedKeyValueStore

        return ScopedKeyValueStore(
            self, tool=tool, scope_id=scope_id, ttl_seconds_default=ttl_seconds_default
        )

    @abstractmethod
    async def get_value(self, namespace: Namespace, key: str) -> str | None:
        """The live value at ``key``, or ``None``."""

    @abstractmethod
    async def set_value(
        self, namespace: Namespace, key: str, value: str, ttl_seconds: float | None
    ) -> None:
        """Upsert ``key``; it expires after ``ttl_seconds`` unless that is ``None``."""

    @abstractmethod
    async def delete_value(self, namespace: Namespace, key: str) -> None:
        """Remove ``key`` when present."""

    @abstractmethod
    async def list_keys(self, namespace: Namespace, prefix: str) -> list[str]:
        """Live keys starting with ``prefix`` (literally), sorted by code point."""

    @abstractmethod
    async def increment_value(
        self, namespace: Namespace, key: str, by: int, ttl_seconds: float | None
    ) -> int:
        """Atomically add ``by``; an absent key starts at 0 and gets ``ttl_seconds``.

        A live key keeps its expiry. Raises `StoreError` when the value is not an integer.
        """

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

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
