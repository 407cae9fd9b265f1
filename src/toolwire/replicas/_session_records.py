"""`SessionRecords`: handshake-era MCP sessions kept on the shared store, so any replica
answers them.

A session opened by ``initialize`` on one replica is written here before the answer leaves:
its id, the negotiated protocol version, the client's ``initialize`` parameters (capabilities
and info), the credential that opened it, its log level, when it was opened and last used, and
its idle timeout. The record's time to live *is* the idle timeout: every request refreshes it
(at most once per tenth of the timeout per replica, so a busy session costs one write now and
then, not one per request), and a session nobody used for that long expires on every replica.
``DELETE`` removes it, which ends the session everywhere: a replica that still holds a local
transport for it checks the record before serving and answers 404 once it is gone.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.auth.middleware.bearer_auth import AuthorizationContext

    from toolwire.capabilities.seams import AtomicKeyValueStore
    from toolwire.stores._base import KeyValueBackend

__all__ = ["SESSIONS_TOOL", "SessionRecord", "SessionRecords"]

SESSIONS_TOOL = "toolwire.sessions"
"""The store namespace of the records (``tool:toolwire.sessions``; not a valid tool name)."""
_TOUCH_FRACTION = 0.1
_CAS_TRIES = 8


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionRecord:
    """One handshake-era session as the store keeps it.

    Attributes:
        session_id: The ``Mcp-Session-Id``.
        protocol_version: The version ``initialize`` negotiated.
        client_params: The client's ``initialize`` parameters (wire form: ``capabilities``,
            ``clientInfo``, ``protocolVersion``); ``None`` until ``initialize`` was answered.
        owner: The credential that opened it (``None``: no authentication).
        log_level: What the client chose with ``logging/setLevel`` (``None``: every level).
        created_at: When it was opened (Unix time).
        last_seen: When a request last refreshed it.
        idle_timeout_s: How long it may sit unused.
        replica_id: The replica that opened it.
    """

    session_id: str
    protocol_version: str
    client_params: dict[str, Any] | None
    owner: dict[str, Any] | None
    log_level: str | None = None
    created_at: float
    last_seen: float
    idle_timeout_s: float
    replica_id: str

    def owned_by(self, requestor: AuthorizationContext | None) -> bool:
        """Whether ``requestor`` is the credential that opened the session."""
        return self.owner == (dict(requestor) if requestor is not None else None)

    def to_json(self) -> str:
        """The stored form."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str) -> SessionRecord | None:
        """The record, or ``None`` for something unreadable (treated as no session)."""
        try:
            return cls(**json.loads(raw))
        except (ValueError, TypeError):
            return None


class SessionRecords:
    """Save, load, refresh and delete session records (see the module docstring).

    Args:
        backend: The shared store.
    """

    def __init__(self, backend: KeyValueBackend) -> None:
        store = backend.scoped(SESSIONS_TOOL, f"tool:{SESSIONS_TOOL}")
        self._store: AtomicKeyValueStore = store  # type: ignore[assignment]
        self._touched: dict[str, float] = {}

    async def save(self, record: SessionRecord) -> None:
        """Write ``record``; it expires after its idle timeout."""
        await self._store.set(record.session_id, record.to_json(), record.idle_timeout_s)
        self._touched[record.session_id] = time.monotonic()

    async def load(self, session_id: str) -> SessionRecord | None:
        """The live record, or ``None`` when there is none (never opened, deleted, expired)."""
        raw = await self._store.get(session_id)
        return SessionRecord.from_json(raw) if raw is not None else None

    async def touch(self, record: SessionRecord) -> None:
        """Push the record's expiry out by its idle timeout, unless this replica did so less
        than a tenth of the timeout ago."""
        now = time.monotonic()
        last = self._touched.get(record.session_id)
        if last is not None and now - last < record.idle_timeout_s * _TOUCH_FRACTION:
            return
        await self.update(record.session_id, lambda r: replace(r, last_seen=time.time()))

    async def update(
        self, session_id: str, change: Callable[[SessionRecord], SessionRecord]
    ) -> SessionRecord | None:
        """Apply ``change`` (a record → record function) by compare-and-set, keeping the
        expiry a full idle timeout away; ``None`` when the record is gone."""
        for _ in range(_CAS_TRIES):
            raw = await self._store.get(session_id)
            record = SessionRecord.from_json(raw) if raw is not None else None
            if record is None:
                self._touched.pop(session_id, None)
                return None
            new = change(record)
            ttl = new.idle_timeout_s
            if await self._store.compare_and_set(session_id, raw, new.to_json(), ttl_seconds=ttl):
                self._touched[session_id] = time.monotonic()
                return new
        return None

    async def delete(self, session_id: str) -> None:
        """End the session on every replica."""
        self._touched.pop(session_id, None)
        await self._store.delete(session_id)

    async def count(self) -> int:
        """How many sessions are open across every replica."""
        return len(await self._store.list(""))

    def forget_local(self, session_id: str) -> None:
        """Drop this replica's note of when it last refreshed ``session_id``."""
        self._touched.pop(session_id, None)
