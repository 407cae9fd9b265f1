"""The seam of the ``storage`` kind: `KeyValueStore`, and `AtomicKeyValueStore` for stores that
also compare and set."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["AtomicKeyValueStore", "KeyValueStore"]


@runtime_checkable
class KeyValueStore(Protocol):
    """A string → string store, already partitioned by ``(tool, scope_id)``.

    Keys and values are strings; serialise structured data with JSON. Keys written with a TTL
    become invisible to `get` and `list` once expired.
    """

    async def get(self, key: str) -> str | None:
        """The value, or ``None`` when the key is absent or expired."""
        ...

    async def set(self, key: str, value: str, ttl_seconds: float | None = None) -> None:
        """Upsert ``key``; ``ttl_seconds`` (> 0) makes it expire, ``None`` uses the default."""
        ...

    async def delete(self, key: str) -> None:
        """Remove ``key``; a no-op when absent."""
        ...

    async def list(self, prefix: str = "") -> list[str]:
        """Every live key starting with ``prefix`` (taken literally: no wildcards), sorted."""
        ...

    async def increment(self, key: str, by: int = 1) -> int:
        """Atomically add ``by`` to the integer stored at ``key`` (0 when absent); the new value."""
        ...


@runtime_checkable
class AtomicKeyValueStore(KeyValueStore, Protocol):
    """A `KeyValueStore` that can also replace a value only if nobody changed it meanwhile.

    Every built-in store is one (``KeyValueBackend.scoped`` returns a `ScopedKeyValueStore`).
    Read a value, compute the new one, then `compare_and_set` it against what you read; when
    that answers ``False`` another writer got there first: read again and retry. Put a revision
    number in the value when the same content may come back (A → B → A), so a stale writer
    cannot mistake the second A for the first.
    """

    async def compare_and_set(
        self, key: str, expected: str | None, value: str, ttl_seconds: float | None = None
    ) -> bool:
        """Write ``value`` only if ``key`` holds exactly ``expected`` (``None``: is absent or
        expired); whether it was written. Atomic across processes on a shared store.

        ``ttl_seconds`` works as in `set` (``None`` uses the store's default).
        """
        ...
