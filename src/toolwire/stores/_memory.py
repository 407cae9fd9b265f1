"""`MemoryKeyValueBackend`: a process-local store for tests and single-run agents."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from toolwire.errors import StoreError
from toolwire.stores._base import (
    KeyValueBackend,
    Namespace,
    check_counter_range,
    parse_counter,
)

__all__ = ["MemoryKeyValueBackend"]


@dataclass(frozen=True, kw_only=True, slots=True)
class _Entry:
    value: str
    expires_at: float | None
    """`time.monotonic` deadline, or ``None``."""

    def live(self, now: float) -> bool:
        return self.expires_at is None or self.expires_at > now


def _deadline(ttl_seconds: float | None) -> float | None:
    return None if ttl_seconds is None else time.monotonic() + ttl_seconds


class MemoryKeyValueBackend(KeyValueBackend):
    """Dicts in memory, one per namespace; nothing survives the process.

    A lock makes every operation (and `increment` in particular) atomic even when the backend is
    shared by several threads or event loops.

    Args:
        isolate_tools: Split ``session`` and ``personality`` scopes per tool too (by default
            the tools of a session or personality share them, as spec 04 says).

    Raises:
        ConfigurationError: ``isolate_tools`` is not a bool.
    """

    def __init__(self, *, isolate_tools: bool = False) -> None:
        super().__init__(isolate_tools=isolate_tools)
        self._namespaces: dict[Namespace, dict[str, _Entry]] = {}
        self._lock = threading.Lock()
        self._closed = False

    def _entries(self, namespace: Namespace) -> dict[str, _Entry]:
        if self._closed:
            raise StoreError("MemoryKeyValueBackend is closed; create a new backend")
        return self._namespaces.setdefault(namespace, {})

    async def get_value(self, namespace: Namespace, key: str) -> str | None:
        with self._lock:
            entry = self._entries(namespace).get(key)
            return entry.value if entry is not None and entry.live(time.monotonic()) else None

    async def set_value(
        self, namespace: Namespace, key: str, value: str, ttl_seconds: float | None
    ) -> None:
        with self._lock:
            self._entries(namespace)[key] = _Entry(value=value, expires_at=_deadline(ttl_seconds))

    async def delete_value(self, namespace: Namespace, key: str) -> None:
        with self._lock:
            self._entries(namespace).pop(key, None)

    async def list_keys(self, namespace: Namespace, prefix: str) -> list[str]:
        now = time.monotonic()
        with self._lock:
            entries = self._entries(namespace)
            return sorted(k for k, e in entries.items() if k.startswith(prefix) and e.live(now))

    async def increment_value(
        self, namespace: Namespace, key: str, by: int, ttl_seconds: float | None
    ) -> int:
        with self._lock:
            entries = self._entries(namespace)
            entry = entries.get(key)
            if entry is None or not entry.live(time.monotonic()):
                result = check_counter_range(by, key)
                entries[key] = _Entry(value=str(result), expires_at=_deadline(ttl_seconds))
                return result
            result = check_counter_range(parse_counter(entry.value, key) + by, key)
            entries[key] = _Entry(value=str(result), expires_at=entry.expires_at)
            return result

    async def compare_and_set_value(
        self,
        namespace: Namespace,
        key: str,
        expected: str | None,
        value: str,
        ttl_seconds: float | None,
    ) -> bool:
        with self._lock:
            entries = self._entries(namespace)
            entry = entries.get(key)
            current = entry.value if entry is not None and entry.live(time.monotonic()) else None
            if current != expected:
                return False
            entries[key] = _Entry(value=value, expires_at=_deadline(ttl_seconds))
            return True

    async def purge_expired(self) -> int:
        now = time.monotonic()
        removed = 0
        with self._lock:
            for entries in self._namespaces.values():
                dead = [k for k, e in entries.items() if not e.live(now)]
                for key in dead:
                    del entries[key]
                removed += len(dead)
        return removed

    async def aclose(self) -> None:
        with self._lock:
            self._closed = True
            self._namespaces.clear()
