"""`DefaultTtlStore`: a declared default TTL for a store whose factory does not take one."""

from __future__ import annotations

from toolwire.capabilities.seams import KeyValueStore
from toolwire.errors import ConfigurationError

__all__ = ["DefaultTtlStore"]


class DefaultTtlStore:
    """A `KeyValueStore` that applies a default TTL when `set` is given none.

    Args:
        store: The store to wrap.
        ttl_seconds_default: Seconds a key written without a TTL lives.
    """

    __slots__ = ("_store", "_ttl")

    def __init__(self, store: KeyValueStore, ttl_seconds_default: float) -> None:
        if not ttl_seconds_default > 0:
            raise ConfigurationError("ttl_seconds_default must be a positive number")
        self._store = store
        self._ttl = ttl_seconds_default

    async def get(self, key: str) -> str | None:
        """The value, or ``None``."""
        return await self._store.get(key)

    async def set(self, key: str, value: str, ttl_seconds: float | None = None) -> None:
        """Upsert ``key``; a per-call ``ttl_seconds`` wins over the default."""
        await self._store.set(key, value, ttl_seconds if ttl_seconds is not None else self._ttl)

    async def delete(self, key: str) -> None:
        """Remove ``key``."""
        await self._store.delete(key)

    async def list(self, prefix: str = "") -> list[str]:
        """Live keys starting with ``prefix``, sorted."""
        return await self._store.list(prefix)

    async def increment(self, key: str, by: int = 1) -> int:
        """Atomically add ``by`` (the wrapped store decides the expiry of a new counter)."""
        return await self._store.increment(key, by)

    def __repr__(self) -> str:
        return f"DefaultTtlStore({self._store!r}, ttl_seconds_default={self._ttl!r})"
