"""Key-value stores behind the `KeyValueStore` seam: memory, SQLite, Redis and PostgreSQL.

A `KeyValueBackend` is the physical store; its `KeyValueBackend.scoped` method is the
``kv_store_factory`` the capability resolver calls with ``(tool_name, scope_id)`` (and the
declaration's ``ttl_seconds_default``). As spec 04 says, the tools of one ``session:<id>`` or
``personality:<id>`` share its keys and ``tool:<name>`` is private to its tool; pass
``isolate_tools=True`` to a backend (or `create_kv_backend`) to split every scope per tool.
The Redis and PostgreSQL drivers are imported only when those backends are created; they are
asyncio libraries, so on trio those two stores raise `StoreError` (memory and SQLite run on both).

```python
from toolwire.backends.kv import create_kv_backend

backend = create_kv_backend("sqlite:///state/kv.db")
store = backend.scoped("usage_counter", "tool:usage_counter", ttl_seconds_default=None)
await store.set("greeting", "hello")
await backend.aclose()
```
"""

from __future__ import annotations

from toolwire.backends.kv.base import KeyValueBackend, KeyValueStoreFactory, Namespace
from toolwire.backends.kv.memory import MemoryKeyValueBackend
from toolwire.backends.kv.postgres import PostgresKeyValueBackend
from toolwire.backends.kv.redis import RedisKeyValueBackend
from toolwire.backends.kv.scoped import ScopedKeyValueStore
from toolwire.backends.kv.sqlite import SqliteKeyValueBackend
from toolwire.backends.kv.ttls import MAX_TTL_SECONDS, MIN_TTL_SECONDS
from toolwire.backends.kv.urls import create_kv_backend

__all__ = [
    "MAX_TTL_SECONDS",
    "MIN_TTL_SECONDS",
    "KeyValueBackend",
    "KeyValueStoreFactory",
    "MemoryKeyValueBackend",
    "Namespace",
    "PostgresKeyValueBackend",
    "RedisKeyValueBackend",
    "ScopedKeyValueStore",
    "SqliteKeyValueBackend",
    "create_kv_backend",
]
