"""The quota stage: limits checked and reserved before a call runs, on store-backed counters.

A `Quota` limits the calls of some tools (all of them, named ones, or whole toolsets) per scope
(each session, each personality, or everything at once):

- ``calls``: calls per window (``window_s``; without one, over the scope's whole life);
- ``concurrent``: calls running at once (a call handed off to a task keeps its slot): leased
  slots, renewed while held (`toolwire.execution.quota_slots`);
- ``cost_usd``: the ``Ok.cost_usd`` the calls reported, charged when each call ends;
- ``wall_time_s``: the seconds the calls ran, charged when each call ends.

Counts are reserved with the store's atomic ``increment`` before the tool starts: a call whose
reservation lands past the limit gives it back and is refused, so however many calls race (in
one batch or in several processes sharing the store) no more than the limit ever run. Cost and
wall time cannot be known in advance: a call is refused once what was charged reached the limit.
A refused call is answered ``not_available`` (``reason="quota_exceeded"``) naming the quota,
the limit and when it resets.

Counters live in the registry's key-value store (namespace `QUOTAS_SCOPE`) or the one
`Quotas.store` names; a registry with neither refuses every call a quota covers
(``quota_store_missing``): a limit that cannot be counted is not skipped.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, cast

import anyio

from toolwire.capabilities.seams import AtomicKeyValueStore, KeyValueStore
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.execution.quota_slots import Slot, claim_slot, free_slots, renew_slots
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tools import Tool

__all__ = [
    "QUOTAS_SCOPE",
    "QUOTAS_TOOL",
    "Quota",
    "QuotaScope",
    "Quotas",
    "Reservation",
    "atomic_store",
    "quota_store",
    "reserve",
]

QUOTAS_TOOL = "toolwire-quotas"
"""The tool name the quota store is asked for (``kv_store_factory(QUOTAS_TOOL, ...)``)."""
QUOTAS_SCOPE = f"tool:{QUOTAS_TOOL}"
"""Its scope: private to the quotas, shared by every process on the same store."""

QuotaScope: TypeAlias = Literal["session", "personality", "global"]
"""Whom a quota counts for: each session, each personality, or every call at once."""

_MICRO_USD = 1_000_000
_COUNTER_TTL_FLOOR_S = 60.0
StoreFactory: TypeAlias = Callable[[str, str], KeyValueStore]
_ATOMIC_TYPES: dict[type, bool] = {}


@dataclass(frozen=True, kw_only=True, slots=True)
class Quota:
    """One set of limits over some tools, counted per scope.

    Attributes:
        name: Names the quota in refusals and in its counters' keys (keep it stable).
        tools: Tool names it covers (kept as a frozenset); with ``toolsets`` both widen the
            cover; neither: every tool.
        toolsets: Toolsets it covers (kept as a frozenset).
        scope: ``"session"`` (each session counts alone), ``"personality"`` or ``"global"``.
        calls: At most this many calls per window.
        window_s: The window of ``calls``, ``cost_usd`` and ``wall_time_s`` (fixed windows,
            aligned to the epoch); ``None``: one window for the scope's whole life.
        concurrent: At most this many calls running at once.
        cost_usd: Calls are refused once the costs reported (``Ok.cost_usd``) reach this.
        wall_time_s: Calls are refused once the seconds spent in them reach this.
        lease_s: How long a ``concurrent`` slot survives a process that died holding it (a
            live call renews its slot's lease while it runs).
    """

    name: str
    tools: Collection[str] | None = None
    toolsets: Collection[str] | None = None
    scope: QuotaScope = "session"
    calls: int | None = None
    window_s: float | None = None
    concurrent: int | None = None
    cost_usd: float | None = None
    wall_time_s: float | None = None
    lease_s: float = 3600.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or ":" in self.name:
            raise ConfigurationError(
                f"Quota(name={self.name!r}): give a non-empty name without ':' (it keys counters)"
            )
        for attr in ("tools", "toolsets"):
            value = getattr(self, attr)
            if isinstance(value, str):
                raise ConfigurationError(f"Quota({attr}=...) takes a list of names, not a string")
            if value is not None:
                object.__setattr__(self, attr, frozenset(value))
        if self.scope not in ("session", "personality", "global"):
            raise ConfigurationError(
                f"Quota(scope={self.scope!r}) must be 'session', 'personality' or 'global'"
            )
        limits = (self.calls, self.concurrent, self.cost_usd, self.wall_time_s)
        if all(limit is None for limit in limits):
            raise ConfigurationError(
                f"Quota {self.name!r} sets no limit: give calls, concurrent, cost_usd or "
                "wall_time_s"
            )
        for attr in ("calls", "concurrent"):
            value = getattr(self, attr)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ConfigurationError(f"Quota({attr}={value!r}) must be an integer >= 0")
        for attr in ("cost_usd", "wall_time_s"):
            value = getattr(self, attr)
            if value is not None and not value >= 0:
                raise ConfigurationError(f"Quota({attr}={value!r}) must be >= 0")
        for attr in ("window_s", "lease_s"):
            value = getattr(self, attr)
            if value is not None and not 0 < value < math.inf:
                raise ConfigurationError(f"Quota({attr}={value!r}) must be positive seconds")

    def covers(self, tool: Tool) -> bool:
        """Whether calls of ``tool`` count against this quota."""
        if self.tools is None and self.toolsets is None:
            return True
        if self.tools is not None and tool.name in self.tools:
            return True
        return self.toolsets is not None and tool.toolset in self.toolsets

    def scope_id(self, ctx: ToolContext) -> str:
        """The counter partition the call falls in."""
        if self.scope == "session":
            return f"s={ctx.session_id}"
        if self.scope == "personality":
            return f"p={ctx.personality_id or '-'}"
        return "*"

    def window(self, now: float) -> tuple[int, float | None]:
        """The current window's index and when it ends (``None``: it never does)."""
        if self.window_s is None:
            return 0, None
        index = int(now // self.window_s)
        return index, (index + 1) * self.window_s


@dataclass(frozen=True, slots=True)
class Quotas:
    """The quotas a registry enforces (``ToolRegistry(quotas=Quotas([...]))``).

    Attributes:
        limits: The quotas; a call must fit every one that covers its tool.
        store: Where counters live; ``None`` uses the registry's key-value backend (namespace
            `QUOTAS_SCOPE`), so processes sharing that store share the counts. It must
            compare and set (every built-in store does).
        clock: Wall-clock seconds (``time.time``); windows are aligned to it.
    """

    limits: Sequence[Quota]
    store: KeyValueStore | None = None
    clock: Callable[[], float] = field(default=time.time, compare=False)
    _by_tool: dict[int, tuple[Tool, tuple[Quota, ...]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _stores: dict[StoreFactory, AtomicKeyValueStore | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if isinstance(self.limits, Quota):
            raise ConfigurationError("Quotas() takes a list of Quota, e.g. Quotas([quota])")
        limits = tuple(self.limits)
        for limit in limits:
            if not isinstance(limit, Quota):
                raise ConfigurationError(f"Quotas() takes Quota values, got {limit!r}")
        names = [limit.name for limit in limits]
        if len(set(names)) != len(names):
            raise ConfigurationError(f"Quotas(): two quotas share a name: {sorted(names)}")
        object.__setattr__(self, "limits", limits)
        if self.store is not None and not isinstance(self.store, AtomicKeyValueStore):
            raise ConfigurationError(
                "Quotas(store=...) needs a store with compare_and_set (every built-in "
                "key-value store has one: backend.scoped(name, scope))"
            )

    def covering(self, tool: Tool) -> tuple[Quota, ...]:
        """The quotas covering ``tool`` (worked out once per tool definition: one dictionary
        lookup per call after that)."""
        known = self._by_tool.get(id(tool))
        if known is not None and known[0] is tool:
            return known[1]
        found = tuple(limit for limit in self.limits if limit.covers(tool))
        self._by_tool[id(tool)] = (tool, found)
        return found


def quota_store(quotas: Quotas, factory: StoreFactory | None) -> AtomicKeyValueStore | None:
    """The store counters live in, or ``None`` when there is none that can compare and set."""
    if quotas.store is not None:
        return cast("AtomicKeyValueStore", quotas.store)  # checked when Quotas was made
    if factory is None:
        return None
    try:
        return quotas._stores[factory]
    except KeyError:
        store = quotas._stores[factory] = atomic_store(factory, QUOTAS_TOOL, QUOTAS_SCOPE)
        return store


def atomic_store(factory: StoreFactory, tool: str, scope: str) -> AtomicKeyValueStore | None:
    """``factory(tool, scope)`` when it can compare and set, else ``None``. The protocol check
    is slow (tens of µs), so its answer is kept per store type."""
    store = factory(tool, scope)
    atomic = _ATOMIC_TYPES.get(type(store))
    if atomic is None:
        atomic = _ATOMIC_TYPES[type(store)] = isinstance(store, AtomicKeyValueStore)
    return cast("AtomicKeyValueStore", store) if atomic else None


class Reservation:
    """What a call holds while it runs; `release` gives it back and charges what it used."""

    __slots__ = ("_charges", "_slots", "_started", "_store")

    def __init__(self, store: AtomicKeyValueStore) -> None:
        self._store = store
        self._slots: list[Slot] = []  # concurrency slots
        self._charges: list[tuple[Quota, str, float | None]] = []  # cost/time counters
        self._started = time.monotonic()

    @property
    def holds_slots(self) -> bool:
        """Whether the call holds concurrency slots (whose leases `keep_leases` renews)."""
        return bool(self._slots)

    async def keep_leases(self) -> None:
        """Renew the call's slot leases until cancelled: run it beside the call."""
        await renew_slots(self._store, tuple(self._slots))

    async def release(self, result: ToolResult | None) -> None:
        """Free the concurrency slots and charge the call's cost and wall time (shielded from
        cancellation: a cancelled call still gives its slot back)."""
        elapsed_ms = round((time.monotonic() - self._started) * 1000)
        cost = result.cost_usd if isinstance(result, Ok) else None
        with anyio.CancelScope(shield=True):
            await free_slots(self._store, self._slots)
            self._slots.clear()
            for quota, key, expires in self._charges:
                if quota.cost_usd is not None and cost:
                    amount = round(cost * _MICRO_USD)
                    await _add(self._store, f"cost:{key}", amount, expires)
                if quota.wall_time_s is not None and elapsed_ms > 0:
                    await _add(self._store, f"ms:{key}", elapsed_ms, expires)
            self._charges.clear()


async def reserve(
    quotas: Quotas, factory: StoreFactory | None, tool: Tool, ctx: ToolContext
) -> Reservation | Err | None:
    """Check every quota covering ``tool`` and reserve the call's place in each.

    Returns ``None`` when no quota covers the tool, the `Reservation` to release when the call
    ends, or the refusal (nothing stays reserved then).
    """
    covering = quotas.covering(tool)
    if not covering:
        return None
    store = quota_store(quotas, factory)
    if store is None:
        return Err(
            f"Tool {tool.name} is limited by a quota, but no quota store is configured "
            "(give the registry a key-value backend, or quotas=Quotas(..., store=...))",
            ErrorCode.NOT_AVAILABLE,
            reason="quota_store_missing",
        )
    now = quotas.clock()
    held = Reservation(store)
    taken: list[str] = []  # call counts to give back on a refusal
    try:
        for quota in covering:
            refusal = await _reserve_one(store, quota, tool, ctx, now, held, taken)
            if refusal is not None:
                with anyio.CancelScope(shield=True):
                    for key in taken:
                        await _give_back(store, key)
                    await held.release(None)
                return refusal
    except BaseException:
        with anyio.CancelScope(shield=True):
            for key in taken:
                await _give_back(store, key)
            await held.release(None)
        raise
    return held


async def _reserve_one(
    store: AtomicKeyValueStore,
    quota: Quota,
    tool: Tool,
    ctx: ToolContext,
    now: float,
    held: Reservation,
    taken: list[str],
) -> Err | None:
    scope_id = quota.scope_id(ctx)
    index, ends = quota.window(now)
    base = f"{quota.name}:{scope_id}:{index}"
    expires = None if ends is None else max(ends - now, 0.0) + _window_margin(quota)
    if quota.cost_usd is not None:
        spent = _read_int(await store.get(f"cost:{base}")) / _MICRO_USD
        if spent >= quota.cost_usd:
            return _refusal(tool, quota, f"${quota.cost_usd:g} of cost", ends, now)
    if quota.wall_time_s is not None:
        spent = _read_int(await store.get(f"ms:{base}")) / 1000
        if spent >= quota.wall_time_s:
            return _refusal(tool, quota, f"{quota.wall_time_s:g} s of wall time", ends, now)
    if quota.calls is not None:
        key = f"calls:{base}"
        count = await _add(store, key, 1, expires)
        taken.append(key)
        if count > quota.calls:
            return _refusal(tool, quota, f"{quota.calls} calls", ends, now)
    if quota.concurrent is not None:
        prefix = f"slot:{quota.name}:{scope_id}"
        slot = await claim_slot(store, prefix, quota.concurrent, quota.lease_s)
        if slot is None:
            return _refusal(tool, quota, f"{quota.concurrent} concurrent calls", None, now)
        held._slots.append(slot)
    if quota.cost_usd is not None or quota.wall_time_s is not None:
        held._charges.append((quota, base, expires))
    return None


def _window_margin(quota: Quota) -> float:
    return max(quota.window_s or 0.0, _COUNTER_TTL_FLOOR_S)


def _refusal(tool: Tool, quota: Quota, limit: str, ends: float | None, now: float) -> Err:
    per = {"session": "per session", "personality": "per personality", "global": "in all"}
    if "concurrent" in limit:
        when = "a slot frees when a running call ends"
    elif ends is None:
        when = "it does not reset"
    else:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ends))
        when = f"it resets in {max(ends - now, 0.0):.0f} s (at {stamp})"
    window = f" per {quota.window_s:g} s" if quota.window_s is not None and ends else ""
    return Err(
        f"Tool {tool.name} was not run: quota {quota.name!r} allows {limit}{window} "
        f"{per[quota.scope]} and is used up; {when}",
        ErrorCode.NOT_AVAILABLE,
        reason="quota_exceeded",
    )


def _read_int(raw: str | None) -> int:
    if raw is None:
        return 0
    try:
        return int(json.loads(raw))
    except (ValueError, TypeError):
        return 0


async def _add(store: AtomicKeyValueStore, key: str, by: int, ttl: float | None) -> int:
    """``increment``; the call that creates the counter gives it its expiry (a compare-and-set
    of the value onto itself, so increments racing with it are never lost)."""
    count = await store.increment(key, by)
    if count == by and ttl is not None:
        for _ in range(8):
            raw = await store.get(key)
            if raw is None or await store.compare_and_set(key, raw, raw, ttl_seconds=ttl):
                break
    return count


async def _give_back(store: AtomicKeyValueStore, key: str) -> None:
    """Take one back from a counter; one left below zero by an expired counter is set to zero."""
    count = await store.increment(key, -1)
    if count < 0:
        await store.compare_and_set(key, str(count), "0")
