"""`ReplicaState`: what one replica shares with the others, and its heartbeat.

```python
from toolwire.replicas import ReplicaSettings, ReplicaState

settings = ReplicaSettings(enabled=True, replica_id="api-1")
async with ReplicaState(backend, settings).running() as state:
    await serve_http(registry, ServeOptions(replicas=state), host="0.0.0.0", port=8765)
```

It holds the shared store's backend, this replica's settings, the heartbeats
(`ReplicaDirectory`), the legacy sessions' records (`SessionRecords`) and `owner`, the
`ResourceOwner` that names this replica in the ids of its local resources. `running` beats
until it exits, then removes the heartbeat.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from toolwire.errors import ConfigurationError
from toolwire.replicas._directory import ReplicaDirectory
from toolwire.replicas._session_records import SessionRecords
from toolwire.replicas.owners import ResourceOwner

if TYPE_CHECKING:
    from toolwire.replicas._settings import ReplicaSettings
    from toolwire.stores._base import KeyValueBackend

__all__ = ["ReplicaState"]

logger = logging.getLogger("toolwire.replicas")


class ReplicaState:
    """This replica's view of the group (see the module docstring).

    Args:
        backend: The shared store (Redis or PostgreSQL; SQLite for replicas on one machine).
        settings: This replica's id, address and heartbeat.

    Raises:
        ConfigurationError: ``backend`` is in-memory, which no other process can reach.
    """

    def __init__(self, backend: KeyValueBackend, settings: ReplicaSettings) -> None:
        from toolwire.stores._memory import MemoryKeyValueBackend

        if isinstance(backend, MemoryKeyValueBackend):
            raise ConfigurationError(
                "replicas need a shared store, and memory:// is private to one process: set "
                "[store] url to redis://..., postgresql://... (or sqlite:///... for replicas on "
                "one machine)"
            )
        self.backend = backend
        self.settings = settings
        self.directory = ReplicaDirectory(backend, settings)
        self.sessions = SessionRecords(backend)
        self.owner = ResourceOwner(replica_id=settings.replica_id, directory=self.directory)

    @property
    def replica_id(self) -> str:
        """This replica's name."""
        return self.settings.replica_id

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ReplicaState]:
        """Beat (the first heartbeat is written before this yields) until the block exits,
        then remove the heartbeat.

        Raises:
            StoreError: the store cannot be reached at start.
        """
        await self.directory.beat()
        logger.info("replica %s joined (%d live)", self.replica_id, len(self.directory.live))
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self.directory.run)
                try:
                    yield self
                finally:
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await self.directory.leave()

    def __repr__(self) -> str:
        return f"ReplicaState(replica_id={self.replica_id!r}, backend={self.backend!r})"
