"""The read records behind ``STALE_WRITE``, per MCP session: in this process, or on the store.

`read_file` notes "this file was read when it was modified at X" in ``ctx.read_mtimes``, and
`write_file`/`patch_file` refuse to write over a file modified since (`toolwire.toolbox._stale`).
A served registry keeps one such map per MCP session:

- `LocalReadRecords` (one server): a dict per session in this process, the newest few hundred
  sessions kept;
- `StoredReadRecords` (replicas): one small entry per (session, file) on the shared store
  (``<session>/<digest of the path>`` → ``[mtime, turn]``, each with its own time to live), so
  a file read through one replica and written through another is still checked. Nothing is
  loaded before a call: a write fetches the records of the file it is about to change
  (`toolwire.toolbox._stale.fetch_records`), and what the call set or removed is written back,
  one key per path, **before its answer is sent**. A call touches only the paths it reads and
  writes: calls on different files never meet, the stateless clients' one shared session
  (``mcp-<cluster>``) is not one hot key, and nothing grows without bound (an entry expires
  `DEFAULT_RECORDS_TTL_S` after its last write).
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from toolwire.capabilities.seams import ReadRecord

if TYPE_CHECKING:
    from toolwire.stores._base import KeyValueBackend

__all__ = [
    "READ_RECORDS_TOOL",
    "LocalReadRecords",
    "ReadRecordBook",
    "StoredReadRecords",
    "TrackedRecords",
    "record_key",
]

READ_RECORDS_TOOL = "toolwire.read_records"
"""The store namespace (``tool:toolwire.read_records``; not a valid tool name)."""
SESSIONS_KEPT = 256
"""Sessions whose records one process keeps (`LocalReadRecords`)."""
DEFAULT_RECORDS_TTL_S = 7 * 24 * 3600.0
"""How long one record lives on the store after it was last written."""
_SAVE_LIMIT_S = 10.0


class ReadRecordBook(Protocol):
    """Where a served registry keeps each session's read records."""

    def open(
        self, session_id: str, *, needed: bool = True
    ) -> AbstractAsyncContextManager[dict[str, ReadRecord]]:
        """The session's records for one call (``needed=False``: the tool cannot reach files,
        so nothing is loaded); kept when the block exits."""
        ...

    def local(self, session_id: str) -> dict[str, ReadRecord]:
        """The session's records in this process only (for calls that outlive their request:
        MCP tasks)."""
        ...


class LocalReadRecords:
    """Every session's records in this process (the newest `SESSIONS_KEPT` sessions)."""

    def __init__(self) -> None:
        self.sessions: OrderedDict[str, dict[str, ReadRecord]] = OrderedDict()
        """Session id → its records, least recently used first."""

    def local(self, session_id: str) -> dict[str, ReadRecord]:
        """The session's records (made on first use; the least recently used dropped)."""
        records = self.sessions.get(session_id)
        if records is None:
            records = self.sessions[session_id] = {}
            while len(self.sessions) > SESSIONS_KEPT:
                self.sessions.popitem(last=False)
        else:
            self.sessions.move_to_end(session_id)
        return records

    @asynccontextmanager
    async def open(
        self, session_id: str, *, needed: bool = True
    ) -> AsyncIterator[dict[str, ReadRecord]]:
        """The session's own dict: changes are kept as they happen."""
        yield self.local(session_id)


class TrackedRecords(dict[str, ReadRecord]):
    """A call's records: what it fetched, and which keys it set and removed.

    Args:
        loaded: Records known from the start.
        source: Where `fetch` looks a key up (``None``: nowhere, `fetch` does nothing).
    """

    def __init__(
        self,
        loaded: Iterable[tuple[str, ReadRecord]] = (),
        *,
        source: Callable[[str], Awaitable[ReadRecord | None]] | None = None,
    ) -> None:
        super().__init__(loaded)
        self.set_keys: dict[str, ReadRecord] = {}
        self.removed: set[str] = set()
        self.known: set[str] = set(self)
        """Keys fetched, or set or removed by the call: `fetch` leaves them alone."""
        self._source = source

    @property
    def changed(self) -> bool:
        """Whether anything was set or removed."""
        return bool(self.set_keys or self.removed)

    async def fetch(self, keys: Collection[str]) -> None:
        """Bring in the stored records of ``keys`` this call has not fetched or changed yet
        (what `toolwire.toolbox._stale.fetch_records` asks before a write is checked)."""
        if self._source is None:
            return
        for key in keys:
            if key in self.known:
                continue
            self.known.add(key)
            record = await self._source(key)
            if record is not None and key not in self.set_keys and key not in self.removed:
                super().__setitem__(key, record)

    def __setitem__(self, key: str, value: ReadRecord) -> None:
        super().__setitem__(key, value)
        self.set_keys[key] = value
        self.removed.discard(key)
        self.known.add(key)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._removed(key)

    def pop(self, key: str, *default: Any) -> Any:
        """Remove ``key`` (and remember it); as `dict.pop`."""
        value = super().pop(key, *default)
        self._removed(key)
        return value

    def setdefault(self, key: str, default: ReadRecord) -> ReadRecord:
        """As `dict.setdefault`, remembering a key it sets."""
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args: Any, **kwargs: ReadRecord) -> None:
        """As `dict.update`, remembering every key it sets."""
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def clear(self) -> None:
        """Remove every record (and remember each)."""
        for key in list(self):
            self._removed(key)
        super().clear()

    def popitem(self) -> tuple[str, ReadRecord]:
        """As `dict.popitem`, remembering the key."""
        key, value = super().popitem()
        self._removed(key)
        return key, value

    def _removed(self, key: str) -> None:
        self.set_keys.pop(key, None)
        self.removed.add(key)
        self.known.add(key)


class StoredReadRecords:
    """Every session's records on the shared store, one small entry per (session, file)
    (see the module docstring).

    Args:
        backend: The shared store.
        ttl_s: How long a record lives after it was last written.
    """

    def __init__(self, backend: KeyValueBackend, *, ttl_s: float = DEFAULT_RECORDS_TTL_S) -> None:
        self._store = backend.scoped(READ_RECORDS_TOOL, f"tool:{READ_RECORDS_TOOL}")
        self._ttl_s = ttl_s
        self.in_process = LocalReadRecords()
        """This process's records, for calls that outlive their request."""

    def local(self, session_id: str) -> dict[str, ReadRecord]:
        """This process's records of the session (see `ReadRecordBook.local`)."""
        return self.in_process.local(session_id)

    async def get(self, session_id: str, key: str) -> ReadRecord | None:
        """The session's stored record under ``key`` (a resolved path, or ``inode:...``)."""
        return _decode(await self._store.get(record_key(session_id, key)))

    def records(self, session_id: str) -> TrackedRecords:
        """An empty view of the session's records that fetches what it is asked for."""

        async def source(key: str) -> ReadRecord | None:
            return await self.get(session_id, key)

        return TrackedRecords(source=source)

    async def load(self, session_id: str, keys: Collection[str]) -> TrackedRecords:
        """The session's records of ``keys`` as the store holds them now."""
        records = self.records(session_id)
        await records.fetch(keys)
        return records

    async def save(self, session_id: str, records: TrackedRecords) -> None:
        """Write what ``records`` set and delete what it removed: one store operation per key
        the call changed, sent concurrently, none for the rest (each path's last save wins,
        as in one process)."""
        written, removed = dict(records.set_keys), set(records.removed)
        if not written and not removed:
            return
        async with anyio.create_task_group() as group:
            for key, record in written.items():
                group.start_soon(self._set, session_id, key, record)
            for key in removed:
                group.start_soon(self._store.delete, record_key(session_id, key))
        for key in written:
            if records.set_keys.get(key) is written[key]:
                del records.set_keys[key]
        records.removed -= removed

    async def _set(self, session_id: str, key: str, record: ReadRecord) -> None:
        value = _encode(record)
        await self._store.set(record_key(session_id, key), value, ttl_seconds=self._ttl_s)

    @asynccontextmanager
    async def open(
        self, session_id: str, *, needed: bool = True
    ) -> AsyncIterator[dict[str, ReadRecord]]:
        """The session's records for one call: fetched per file as a write needs them when
        ``needed`` (nothing is loaded up front); saved on exit (also when the call raised:
        what it read, it read)."""
        records = self.records(session_id) if needed else TrackedRecords()
        try:
            yield records
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(_SAVE_LIMIT_S):
                await self.save(session_id, records)


def record_key(session_id: str, key: str) -> str:
    """The store key of one record: the session, then a digest of the path (bounded length,
    whatever the path holds)."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:40]
    return f"{session_id}/{digest}"


def _decode(raw: str | None) -> ReadRecord | None:
    if raw is None:
        return None
    try:
        mtime, turn = json.loads(raw)
        return ReadRecord(mtime=float(mtime), read_at_turn=int(turn))
    except (ValueError, TypeError):
        return None


def _encode(record: ReadRecord) -> str:
    return json.dumps([record.mtime, record.read_at_turn], separators=(",", ":"))
