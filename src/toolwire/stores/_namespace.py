"""The values every key-value backend shares: `Namespace` (which partition a tool reaches), the
64-bit counter rules, and `ValueStore` — the primitives a scoped store calls on its backend.

Kept apart from `toolwire.stores._base` so the scoped store and the backend base class do not import
each other.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from dataclasses import dataclass
from typing import Protocol

from toolwire.errors import ConfigurationError, StoreError

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "TOOL_SCOPE_PREFIX",
    "Namespace",
    "ValueStore",
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


class ValueStore(Protocol):
    """The primitives a `ScopedKeyValueStore` calls; `KeyValueBackend` declares them from here,
    and every backend implements them.

    Arguments arrive validated and the TTL resolved (see `KeyValueBackend`).
    """

    @property
    def isolate_tools(self) -> bool:
        """Whether shared scopes are split per tool as well (see `Namespace.of`)."""
        ...

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

    async def compare_and_set_value(
        self,
        namespace: Namespace,
        key: str,
        expected: str | None,
        value: str,
        ttl_seconds: float | None,
    ) -> bool:
        """Write ``value`` (expiring after ``ttl_seconds`` unless ``None``) only if the live
        value at ``key`` is ``expected`` (``None``: absent or expired); whether it was written.

        Must be atomic against every other writer of the store. The four built-in backends
        implement it; a backend of your own that does not raises `StoreError`.
        """
        raise StoreError(
            f"{type(self).__name__} has no compare_and_set; implement "
            "compare_and_set_value(namespace, key, expected, value, ttl_seconds) atomically "
            "(the built-in memory, SQLite, Redis and PostgreSQL backends do)"
        )
