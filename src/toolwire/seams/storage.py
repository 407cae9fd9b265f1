"""The seam of the ``storage`` kind: `KeyValueStore`."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["KeyValueStore"]


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
