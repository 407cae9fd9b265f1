"""The physical key-value backend: one store holding every ``(tool, scope_id)`` namespace.

A `KeyValueBackend` owns the connection (a file, a pool, a client). Tools never see it: the
resolver calls `KeyValueBackend.scoped` (the ``kv_store_factory``) and hands the tool the
returned `KeyValueStore`, which can only reach its own namespace.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

from toolwire.errors import StoreError

if TYPE_CHECKING:
    from toolwire.seams import KeyValueStore

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "KeyValueBackend",
    "KeyValueStoreFactory",
    "Namespace",
    "check_counter_range",
    "parse_counter",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_CANONICAL_INTEGER = re.compile(r"0|-?[1-9][0-9]*")


@dataclass(frozen=True, kw_only=True, slots=True)
class Namespace:
    """One partition of a backend: the tool's name and its resolved scope id.

    Backends store the two as separate columns (or length-prefixed key components), so no key a
    tool writes can reach another namespace.
    """

    tool: str
    scope_id: str


class KeyValueStoreFactory(Protocol):
    """What the capability resolver calls to get a tool's store (``kv_store_factory``)."""

    def __call__(
        self, tool: str, scope_id: str, *, ttl_seconds_default: float | None = None
    ) -> KeyValueStore:
        """The store for ``(tool, scope_id)``; ``ttl_seconds_default`` applies to TTL-less sets."""
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
    """A physical key-value store partitioned into ``(tool, scope_id)`` namespaces.

    Use it as an async context manager (or call `aclose`) so files and connections are
    released. Pass `scoped` to the capability resolver as its ``kv_store_factory``:

    ```python
    async with SqliteKeyValueBackend("state/kv.db") as backend:
        store = backend.scoped("usage_counter", "tool:usage_counter")
        await store.increment("questions")
    ```

    Subclasses implement the ``*_value``/``list_keys`` primitives; the scoped store has already
    validated every argument and resolved the TTL before calling them.
    """

    def scoped(
        self, tool: str, scope_id: str, *, ttl_seconds_default: float | None = None
    ) -> KeyValueStore:
        """A store that reads and writes only the ``(tool, scope_id)`` namespace.

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

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
