"""`cached`: a TTL cache over a slow provider, sharing one in-flight discovery per key."""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, TypeAlias

import anyio

from toolwire.errors import ConfigurationError
from toolwire.providers._base import ProviderContext, ToolProvider, provider_id
from toolwire.tools import Tool

_ToolList: TypeAlias = list[Tool]

__all__ = ["CachedTools", "cached", "context_key"]

CacheKey = Callable[[ProviderContext], Hashable]


def context_key(ctx: ProviderContext) -> Hashable:
    """The default cache key: every context field except ``iteration`` and the signal.

    So a cache over a skill-, session- or tenant-dependent provider never serves one
    context's tools to another.
    """
    extra: Any = tuple(sorted(ctx.extra.items(), key=lambda item: repr(item[0])))
    try:
        hash(extra)
    except TypeError:
        extra = repr(extra)
    return (ctx.session_id, ctx.active_skill_id, ctx.personality_id, extra)


class _Flight:
    """One discovery in progress; its first awaiter drives it, later ones wait."""

    __slots__ = ("done", "error", "generation", "pending", "started", "tools")

    def __init__(self, pending: Awaitable[Sequence[Tool]], generation: int) -> None:
        self.pending = pending
        self.generation = generation
        self.started = False
        self.done: anyio.Event | None = None
        self.tools: tuple[Tool, ...] | None = None
        self.error: Exception | None = None


class CachedTools:
    """Caches another provider's answer per key for ``ttl_s`` seconds.

    - A fresh entry is answered synchronously, as a **new** list each call.
    - Concurrent callers with the same key share **one** in-flight discovery.
    - A failure is never cached: every waiter of that discovery gets the error, and the next
      call asks the inner provider again. A cancelled discovery is retried by its waiters.
    - Keys default to `context_key`; pass ``key`` when fewer context fields matter.

    Use it from one event loop; concurrent tasks on that loop are safe.
    """

    __slots__ = (
        "_clock",
        "_entries",
        "_flights",
        "_generation",
        "_id",
        "_inner",
        "_key",
        "_max_entries",
        "_ttl_s",
    )

    def __init__(
        self,
        inner: ToolProvider,
        ttl_s: float,
        *,
        key: CacheKey = context_key,
        id: str | None = None,
        max_entries: int = 128,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not ttl_s > 0:
            raise ConfigurationError(
                f"cached(ttl_s={ttl_s!r}) must be a positive number of seconds"
            )
        if max_entries < 1:
            raise ConfigurationError(f"cached(max_entries={max_entries!r}) must be >= 1")
        self._inner = inner
        self._ttl_s = float(ttl_s)
        self._key = key
        self._id = id if id is not None else f"cached:{provider_id(inner)}"
        self._max_entries = max_entries
        self._clock = clock
        self._entries: dict[Hashable, tuple[float, tuple[Tool, ...]]] = {}
        self._flights: dict[Hashable, _Flight] = {}
        self._generation = 0

    @property
    def id(self) -> str:
        """``cached:<inner id>`` unless given."""
        return self._id

    def clear(self) -> None:
        """Forget every entry; discoveries already in flight will not be stored."""
        self._entries.clear()
        self._flights.clear()
        self._generation += 1

    def list(self, ctx: ProviderContext) -> _ToolList | Awaitable[_ToolList]:
        """Cached tools (synchronously) when fresh; otherwise the inner provider's answer."""
        key = self._key(ctx)
        entry = self._entries.get(key)
        if entry is not None and entry[0] > self._clock():
            return list(entry[1])
        flight = self._flights.get(key)
        if flight is None:
            value = self._inner.list(ctx)
            if not inspect.isawaitable(value):
                return list(self._store(key, value, self._generation))
            flight = _Flight(value, self._generation)
            self._flights[key] = flight
        return self._join(key, flight, ctx)

    async def _join(self, key: Hashable, flight: _Flight, ctx: ProviderContext) -> _ToolList:
        if not flight.started:
            return await self._drive(key, flight)
        assert flight.done is not None  # set together with ``started``
        await flight.done.wait()
        if flight.tools is not None:
            return list(flight.tools)
        if flight.error is not None:
            raise flight.error
        retry = self.list(ctx)  # the driver was cancelled: start over
        return await retry if inspect.isawaitable(retry) else retry

    async def _drive(self, key: Hashable, flight: _Flight) -> _ToolList:
        flight.started = True
        flight.done = anyio.Event()
        try:
            flight.tools = self._store(key, await flight.pending, flight.generation)
        except Exception as exc:
            flight.error = exc
            raise
        finally:
            if self._flights.get(key) is flight:
                del self._flights[key]
            flight.done.set()
        return list(flight.tools)

    def _store(self, key: Hashable, tools: Sequence[Tool], generation: int) -> tuple[Tool, ...]:
        frozen = tuple(tools)
        if generation == self._generation:
            self._entries.pop(key, None)
            self._entries[key] = (self._clock() + self._ttl_s, frozen)
            while len(self._entries) > self._max_entries:
                del self._entries[next(iter(self._entries))]
        return frozen

    def __repr__(self) -> str:
        return f"CachedTools({self._inner!r}, ttl_s={self._ttl_s!r}, id={self._id!r})"


def cached(
    inner: ToolProvider,
    ttl_s: float,
    *,
    key: CacheKey = context_key,
    id: str | None = None,
    max_entries: int = 128,
    clock: Callable[[], float] = time.monotonic,
) -> CachedTools:
    """Cache ``inner``'s tools for ``ttl_s`` seconds per ``key(ctx)``.

    Args:
        inner: The provider to cache (usually a discovery-style, asynchronous one).
        ttl_s: Seconds an answer stays fresh, counted from when it arrived.
        key: Which context fields the answer depends on (default: `context_key`).
        id: The provider id (default ``cached:<inner id>``).
        max_entries: Keys kept before the oldest is evicted.
        clock: Monotonic seconds; inject one in tests instead of sleeping.

    Raises:
        ConfigurationError: ``ttl_s`` is not positive or ``max_entries`` < 1.
    """
    return CachedTools(inner, ttl_s, key=key, id=id, max_entries=max_entries, clock=clock)
