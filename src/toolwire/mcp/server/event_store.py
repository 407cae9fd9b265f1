"""`KvEventStore`: the SSE events of streamable HTTP sessions, kept so a client can resume.

A handshake-era client (2025-11-25) that loses a request's SSE stream, or is told to poll (the
server closed the stream after a priming event), comes back with ``GET`` and
``Last-Event-ID``; the SDK's transport then replays what the stream carried after that event
from its `EventStore`. This one keeps the events in a toolwire key-value store, so they are
where any process on the same store can read them:

- **per session**: `KvEventStore.for_session` is the `EventStore` of one session's transport
  (`toolwire.mcp.server.resumable`). Its keys start with a hash of the session id, so request ids,
  which repeat from session to session, never mix, and an event id names nothing in another session;
- **bounded**: every event expires ``ttl_s`` after it was stored, and a stream keeps its newest
  ``max_events_per_stream`` events (an older event id can no longer be resumed from);
- **event ids** are ``<stream>/<n>``: the request's id (percent-encoded) and the event's number
  within its stream. Only the process holding the session writes its streams, so the numbers
  come from a counter in that process, started at the current time in microseconds: they keep
  growing even when a stream's counter was forgotten (the newest 1,024 streams of a session
  are remembered) or the process restarted.

```python
events = KvEventStore.for_registry(registry)           # the registry's key-value backend
store = events.for_session(session_id)                  # the SDK's EventStore interface
```
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections import OrderedDict
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types.jsonrpc import JSONRPCMessage, jsonrpc_message_adapter
from pydantic import ValidationError

from toolwire.errors import ConfigurationError

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.storage.seam import KeyValueStore
    from toolwire.registry import ToolRegistry
    from toolwire.stores._memory import MemoryKeyValueBackend

__all__ = [
    "DEFAULT_EVENT_TTL_S",
    "DEFAULT_MAX_EVENTS_PER_STREAM",
    "EVENTS_SCOPE",
    "EVENTS_TOOL",
    "KvEventStore",
    "SessionEventStore",
]

logger = logging.getLogger("toolwire.mcp.server.event_store")

EVENTS_TOOL = "toolwire-mcp-events"
"""The tool name the events' namespace is asked for under."""
EVENTS_SCOPE = f"tool:{EVENTS_TOOL}"
"""The scope of that namespace (private to it)."""
DEFAULT_EVENT_TTL_S = 60.0
"""How long an event stays resumable. A client that lost a stream comes back within seconds
(it is told to wait 1 s, `toolwire.mcp.server.resumable.RETRY_INTERVAL_MS`); every SSE event of the
server is kept this long, so this bounds the store's size: events/s × 60 s."""
DEFAULT_MAX_EVENTS_PER_STREAM = 512
"""How many of a stream's newest events are kept."""
_SEQ_DIGITS = 20
_PURGE_EVERY_S = 30.0
_STREAMS_COUNTED = 1024


class KvEventStore:
    """The events of every session, in one key-value store; `for_session` gives each
    session's transport its own view (see the module docstring).

    Args:
        store: Where the events live (a namespace of its own: keys are not checked against
            anything else in it).
        ttl_s: Seconds an event is kept.
        max_events_per_stream: How many of a stream's newest events are kept.
        purge: A process-local backend to purge of expired events now and then (the one
            `for_registry` creates when the registry has no key-value backend); stores that
            expire keys themselves need none.

    Raises:
        ConfigurationError: ``ttl_s`` is not positive and finite, or the cap is below 1.
    """

    def __init__(
        self,
        store: KeyValueStore,
        *,
        ttl_s: float = DEFAULT_EVENT_TTL_S,
        max_events_per_stream: int = DEFAULT_MAX_EVENTS_PER_STREAM,
        purge: MemoryKeyValueBackend | None = None,
    ) -> None:
        if not 0 < ttl_s < math.inf:
            raise ConfigurationError(f"KvEventStore(ttl_s={ttl_s!r}) must be positive seconds")
        if max_events_per_stream < 1:
            raise ConfigurationError("KvEventStore(max_events_per_stream=...) must be >= 1")
        self.store = store
        self.ttl_s = ttl_s
        self.max_events_per_stream = max_events_per_stream
        self._purge = purge
        self._purged_at = time.monotonic()

    @classmethod
    def for_registry(
        cls,
        registry: ToolRegistry,
        *,
        ttl_s: float = DEFAULT_EVENT_TTL_S,
        max_events_per_stream: int = DEFAULT_MAX_EVENTS_PER_STREAM,
    ) -> KvEventStore:
        """Events in ``registry``'s key-value backend (namespace `EVENTS_SCOPE`), or, when it
        has none, in a store private to this process."""
        backends = registry.backends
        factory = backends.kv_store_factory if backends is not None else None
        if factory is not None:
            store = factory(EVENTS_TOOL, EVENTS_SCOPE)
            return cls(store, ttl_s=ttl_s, max_events_per_stream=max_events_per_stream)
        from toolwire.stores._memory import MemoryKeyValueBackend

        private = MemoryKeyValueBackend()
        return cls(
            private.scoped(EVENTS_TOOL, EVENTS_SCOPE),
            ttl_s=ttl_s,
            max_events_per_stream=max_events_per_stream,
            purge=private,
        )

    def for_session(self, session_id: str) -> SessionEventStore:
        """The `EventStore` of one session's transport."""
        return SessionEventStore(self, session_id)

    async def purge_now_and_then(self) -> None:
        """Drop expired events from a process-local store (at most every 30 s)."""
        if self._purge is None or time.monotonic() - self._purged_at < _PURGE_EVERY_S:
            return
        self._purged_at = time.monotonic()
        await self._purge.purge_expired()


class SessionEventStore(EventStore):
    """One session's events (the SDK's `EventStore` interface); see `KvEventStore`."""

    def __init__(self, events: KvEventStore, session_id: str) -> None:
        self._events = events
        self._prefix = hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:32] + "/"
        self._counters: OrderedDict[str, tuple[int, int]] = OrderedDict()  # stream → first, next

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        """Keep one event of ``stream_id`` (``None``: a priming event, kept empty); its id."""
        events = self._events
        stream = quote(stream_id, safe="")
        counted = self._counters.pop(stream, None)
        first, seq = counted if counted is not None else (time.time_ns() // 1000,) * 2
        self._counters[stream] = (first, seq + 1)
        if len(self._counters) > _STREAMS_COUNTED:
            self._counters.popitem(last=False)
        data = "" if message is None else message.model_dump_json(by_alias=True, exclude_unset=True)
        await events.store.set(self._key(stream, seq), data, events.ttl_s)
        dropped = seq - events.max_events_per_stream
        if dropped >= first:
            await events.store.delete(self._key(stream, dropped))
        await events.purge_now_and_then()
        return f"{stream}/{seq}"

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """Send the events of ``last_event_id``'s stream that came after it, oldest first
        (priming events are not sent again); the stream's id, or ``None`` when that event is
        unknown here (another session's, malformed, expired or dropped by the cap)."""
        stream, _, number = last_event_id.rpartition("/")
        if not stream or not number.isdigit() or "/" in stream:
            return None
        store = self._events.store
        if await store.get(self._key(stream, int(number))) is None:
            return None
        after = self._key(stream, int(number))
        for key in await store.list(f"{self._prefix}{stream}/"):
            if key <= after:
                continue
            data = await store.get(key)
            if not data:  # a priming event, or expired since it was listed
                continue
            try:
                message = jsonrpc_message_adapter.validate_json(data)
            except ValidationError:
                logger.warning("MCP event %s cannot be read; not replayed", key)
                continue
            await send_callback(EventMessage(message, f"{stream}/{int(key.rpartition('/')[2])}"))
        return unquote(stream)

    def _key(self, stream: str, seq: int) -> str:
        return f"{self._prefix}{stream}/{seq:0{_SEQ_DIGITS}d}"
