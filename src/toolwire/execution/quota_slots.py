"""Concurrency slots of the quota stage: one leased key per slot, renewed while it is held.

A ``concurrent=N`` quota has N slots per scope, each a key of its own in the quota store
(``slot:<quota>:<scope>:<i>``). A call takes a free slot with a compare-and-set from absent to
a token of its own, with a lease of ``lease_s``; while the call runs (or its task does) the
lease is renewed every third of ``lease_s``; when the call ends the slot is freed. So:

- a slot is never taken from a live call, however long it runs and however the traffic of
  other calls rises and falls (a single shared counter with one expiry lost its count
  ``lease_s`` after it was created, under a call still running);
- a slot held by a process that died comes back when its lease runs out, at most ``lease_s``
  after the last renewal;
- however many calls race, in one process or in several on one store, each slot has one
  holder: the compare-and-set decides.

Taking a slot tries the N keys from a random one on, so racing calls rarely meet on the same
key; a refusal costs N compare-and-sets.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import anyio

from toolwire.capabilities.seams import AtomicKeyValueStore

__all__ = ["Slot", "claim_slot", "free_slots", "renew_slots"]

logger = logging.getLogger(__name__)

_RENEWALS_PER_LEASE = 3
"""How many times a lease is renewed within its length (a renewal may be late or fail once)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Slot:
    """One concurrency slot a call holds: its key, the holder's token and the lease length."""

    key: str
    token: str
    lease_s: float


async def claim_slot(
    store: AtomicKeyValueStore, prefix: str, limit: int, lease_s: float
) -> Slot | None:
    """Take one of the ``limit`` slots under ``prefix``; ``None`` when every one is held."""
    if limit <= 0:
        return None
    token = secrets.token_hex(8)
    first = random.randrange(limit)  # spreading racing calls over the keys, not a secret
    for step in range(limit):
        key = f"{prefix}:{(first + step) % limit}"
        if await store.compare_and_set(key, None, token, ttl_seconds=lease_s):
            return Slot(key=key, token=token, lease_s=lease_s)
    return None


async def free_slots(store: AtomicKeyValueStore, slots: Sequence[Slot]) -> None:
    """Give the slots back, each only while this holder still has it."""
    for slot in slots:
        if await store.get(slot.key) == slot.token:
            await store.delete(slot.key)


async def renew_slots(store: AtomicKeyValueStore, slots: Sequence[Slot]) -> None:
    """Renew the slots' leases until cancelled (run it beside the call that holds them).

    A slot whose lease was lost meanwhile (the process stalled past ``lease_s`` and another
    call took it) is not taken back: the limit holds, and a warning says so.
    """
    if not slots:
        return
    period = min(slot.lease_s for slot in slots) / _RENEWALS_PER_LEASE
    live = list(slots)
    while live:
        await anyio.sleep(period)
        for slot in tuple(live):
            renewed = await store.compare_and_set(
                slot.key, slot.token, slot.token, ttl_seconds=slot.lease_s
            )
            if not renewed:
                live.remove(slot)
                logger.warning(
                    "toolwire quota slot %s lapsed under a running call (lease %.0f s)",
                    slot.key,
                    slot.lease_s,
                )
