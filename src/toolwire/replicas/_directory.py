"""`ReplicaDirectory`: which replicas are alive, from heartbeat records on the shared store.

The directory is one small document in the store's ``tool:toolwire.replicas`` namespace
(`DIRECTORY_KEY`): replica id → ``{"id", "address", "started_at", "seen_at", "expires_at"}``.
Every ``heartbeat_s`` a replica reads it, drops the entries whose ``expires_at`` (three of their
own heartbeats after ``seen_at``) has passed, puts its own, and writes it back by
compare-and-set — two operations per beat, whatever else the store holds (a listing would walk
the whole database on Redis), and the document holds only the replicas that beat within three
intervals. A replica that stops beating (killed, its machine gone) drops out within three
heartbeats, so the others answer calls naming its resources with "that replica has stopped"
rather than "try there". Expiry compares one machine's clock with another's: keep the
replicas' clocks in step (NTP) to well within a heartbeat. The document itself expires three
heartbeats after the last beat, when every replica is gone.

`lookup` answers from the last read, without touching the store: it is what the error path of
a tool may call synchronously. `find` reads the store now.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from toolwire.errors import StoreError

if TYPE_CHECKING:
    from toolwire.capabilities.seams import AtomicKeyValueStore
    from toolwire.replicas._settings import ReplicaSettings
    from toolwire.stores._base import KeyValueBackend

__all__ = ["DIRECTORY_KEY", "HEARTBEATS_TOOL", "ReplicaDirectory", "ReplicaInfo"]

logger = logging.getLogger("toolwire.replicas._directory")

HEARTBEATS_TOOL = "toolwire.replicas"
"""The store namespace of the heartbeats (``tool:toolwire.replicas``; not a valid tool name)."""
DIRECTORY_KEY = "directory"
"""The one key of the namespace: every live replica's entry."""
_MISSED_BEATS = 3
_CAS_TRIES = 32


@dataclass(frozen=True, kw_only=True, slots=True)
class ReplicaInfo:
    """A live replica as its last heartbeat described it.

    Attributes:
        replica_id: Its name.
        address: Where it can be reached, when it was configured with one.
        started_at: When it started (Unix time).
        seen_at: Its last heartbeat (Unix time).
    """

    replica_id: str
    address: str | None
    started_at: float
    seen_at: float

    def describe(self) -> str:
        """``api-1 (http://10.0.0.11:8765)``, or the bare id without an address."""
        return f"{self.replica_id} ({self.address})" if self.address else self.replica_id


class ReplicaDirectory:
    """This replica's heartbeat, and the others' (see the module docstring).

    Args:
        backend: The shared store.
        settings: This replica's id, address and heartbeat interval.
    """

    def __init__(self, backend: KeyValueBackend, settings: ReplicaSettings) -> None:
        store = backend.scoped(HEARTBEATS_TOOL, f"tool:{HEARTBEATS_TOOL}")
        self._store: AtomicKeyValueStore = store  # type: ignore[assignment]
        self.settings = settings
        self.started_at = time.time()
        self._live: dict[str, ReplicaInfo] = {}

    @property
    def replica_id(self) -> str:
        """This replica's name."""
        return self.settings.replica_id

    @property
    def ttl_s(self) -> float:
        """How long a heartbeat record lives: three intervals."""
        return self.settings.heartbeat_s * _MISSED_BEATS

    async def beat(self) -> None:
        """Put this replica's heartbeat in the directory, and read every live one.

        Raises:
            StoreError: the store could not be reached, or kept changing under this replica
                (more concurrent writers than `_CAS_TRIES` in a row).
        """
        now = time.time()
        entry = {
            "id": self.replica_id,
            "address": self.settings.address,
            "started_at": self.started_at,
            "seen_at": now,
            "expires_at": now + self.ttl_s,
        }
        live = await self._change(lambda entries: entries.__setitem__(self.replica_id, entry))
        self._live = {k: info for k, info in live.items() if info is not None}

    async def run(self) -> None:
        """Beat every ``heartbeat_s`` until cancelled; a failing store is logged and retried."""
        while True:
            try:
                await self.beat()
            except StoreError as exc:
                logger.warning("replica %s: heartbeat failed: %s", self.replica_id, exc)
            await anyio.sleep(self.settings.heartbeat_s)

    async def leave(self) -> None:
        """Remove this replica's heartbeat (a clean stop): the others see it gone at once."""
        try:
            await self._change(lambda entries: entries.pop(self.replica_id, None))
        except StoreError as exc:
            logger.warning("replica %s: could not remove its heartbeat: %s", self.replica_id, exc)

    async def _read(self) -> tuple[str | None, dict[str, dict[str, Any]]]:
        """The stored document, and its entries that have not expired."""
        raw = await self._store.get(DIRECTORY_KEY)
        return raw, _live_entries(raw, time.time())

    async def _change(
        self, change: Callable[[dict[str, dict[str, Any]]], object]
    ) -> dict[str, ReplicaInfo | None]:
        """Apply ``change`` to the live entries and write them back (compare-and-set,
        retried); the entries written, parsed."""
        for _ in range(_CAS_TRIES):
            raw, entries = await self._read()
            change(entries)
            body = json.dumps(entries, separators=(",", ":"))
            ttl = max([self.ttl_s, *(_ttl_left(e) for e in entries.values())])
            if await self._store.compare_and_set(DIRECTORY_KEY, raw, body, ttl_seconds=ttl):
                return {k: _parse(e) for k, e in entries.items()}
        raise StoreError(
            f"replica directory: {_CAS_TRIES} concurrent writers in a row; the store is "
            "overloaded, or heartbeat_s is too short for this many replicas"
        )

    def lookup(self, replica_id: str) -> ReplicaInfo | None:
        """The replica as of the last heartbeat read; ``None``: it was not alive then."""
        return self._live.get(replica_id)

    @property
    def live(self) -> list[ReplicaInfo]:
        """Every replica alive at the last heartbeat read, by id."""
        return [self._live[k] for k in sorted(self._live)]

    async def find(self, replica_id: str) -> ReplicaInfo | None:
        """The replica's heartbeat as the store holds it now; ``None`` when it has expired."""
        _, entries = await self._read()
        info = _parse(entries.get(replica_id))
        if info is None:
            self._live.pop(replica_id, None)
        else:
            self._live[replica_id] = info
        return info


def _live_entries(raw: str | None, now: float) -> dict[str, dict[str, Any]]:
    """The entries of a stored directory whose ``expires_at`` is still ahead."""
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(k): e
        for k, e in data.items()
        if isinstance(e, dict)
        and isinstance(e.get("expires_at"), int | float)
        and e["expires_at"] > now
    }


def _ttl_left(entry: dict[str, Any]) -> float:
    return float(entry["expires_at"]) - time.time()


def _parse(data: dict[str, Any] | None) -> ReplicaInfo | None:
    if data is None:
        return None
    try:
        return ReplicaInfo(
            replica_id=str(data["id"]),
            address=data.get("address"),
            started_at=float(data["started_at"]),
            seen_at=float(data["seen_at"]),
        )
    except (ValueError, KeyError, TypeError):
        return None
