"""The ``storage`` kind: a key-value store in one scope.

``kind.py`` (declaration and row), ``seam.py`` (`KeyValueStore`, `AtomicKeyValueStore`),
``_default_ttl.py`` (a declared default TTL over any store). The stores themselves (memory, SQLite,
Redis, PostgreSQL) are `toolwire.stores`: the registry keeps its own state there too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.storage.kind import (
        STORAGE,
        KeyValueStore,
        StorageCapability,
        StorageScope,
        storage,
        storage_scope_id,
    )

__all__ = [
    "STORAGE",
    "KeyValueStore",
    "StorageCapability",
    "StorageScope",
    "storage",
    "storage_scope_id",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "STORAGE": "toolwire.capabilities.kinds.storage.kind",
        "KeyValueStore": "toolwire.capabilities.kinds.storage.kind",
        "StorageCapability": "toolwire.capabilities.kinds.storage.kind",
        "StorageScope": "toolwire.capabilities.kinds.storage.kind",
        "storage": "toolwire.capabilities.kinds.storage.kind",
        "storage_scope_id": "toolwire.capabilities.kinds.storage.kind",
    },
    globals(),
)
