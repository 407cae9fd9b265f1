"""Key-value stores behind the `KeyValueStore` seam: memory, SQLite, Redis and PostgreSQL.

A `KeyValueBackend` is the physical store; its `KeyValueBackend.scoped` method is the
``kv_store_factory`` the capability resolver calls with ``(tool_name, scope_id)`` (and the
declaration's ``ttl_seconds_default``). As spec 04 says, the tools of one ``session:<id>`` or
``personality:<id>`` share its keys and ``tool:<name>`` is private to its tool; pass
``isolate_tools=True`` to a backend (or `create_kv_backend`) to split every scope per tool.
The Redis and PostgreSQL drivers are imported only when those backends are created; they are
asyncio libraries, so on trio those two stores raise `StoreError` (memory and SQLite run on both).

```python
from toolwire.stores import create_kv_backend

backend = create_kv_backend("sqlite:///state/kv.db")
store = backend.scoped("usage_counter", "tool:usage_counter", ttl_seconds_default=None)
await store.set("greeting", "hello")
await backend.aclose()
```

Rooms: ``_base.py`` (the physical backend), ``_namespace.py`` (`Namespace`, counters,
`ValueStore`), ``_scoped.py`` (`ScopedKeyValueStore`), ``_ttls.py`` (the TTL rules); the backends
``_memory.py``, ``_sqlite.py`` (with ``_sqlite_thread.py``), ``_redis.py`` and ``_postgres.py``
(``_loops.py``: asyncio only); ``_urls.py`` (`create_kv_backend`) and ``_url_settings.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.stores._base import KeyValueBackend, KeyValueStoreFactory, Namespace
    from toolwire.stores._memory import MemoryKeyValueBackend
    from toolwire.stores._postgres import PostgresKeyValueBackend
    from toolwire.stores._redis import RedisKeyValueBackend
    from toolwire.stores._scoped import ScopedKeyValueStore
    from toolwire.stores._sqlite import SqliteKeyValueBackend
    from toolwire.stores._ttls import MAX_TTL_SECONDS, MIN_TTL_SECONDS
    from toolwire.stores._urls import create_kv_backend

_LAZY = {
    "KeyValueBackend": "toolwire.stores._base",
    "KeyValueStoreFactory": "toolwire.stores._base",
    "MAX_TTL_SECONDS": "toolwire.stores._ttls",
    "MIN_TTL_SECONDS": "toolwire.stores._ttls",
    "MemoryKeyValueBackend": "toolwire.stores._memory",
    "Namespace": "toolwire.stores._base",
    "PostgresKeyValueBackend": "toolwire.stores._postgres",
    "RedisKeyValueBackend": "toolwire.stores._redis",
    "ScopedKeyValueStore": "toolwire.stores._scoped",
    "SqliteKeyValueBackend": "toolwire.stores._sqlite",
    "create_kv_backend": "toolwire.stores._urls",
}


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

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
