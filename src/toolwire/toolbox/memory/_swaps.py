"""`swap`: read, change and compare-and-set one key until no other writer got in between."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

import anyio

from toolwire.capabilities.seams import AtomicKeyValueStore
from toolwire.results import Err, ErrorCode

__all__ = ["MAX_ATTEMPTS", "Refusal", "swap"]

MAX_ATTEMPTS = 100
"""Rounds `swap` tries before it gives up; each lost round means another writer succeeded."""

R = TypeVar("R")


class Refusal(Exception):
    """Raised by a change function to stop `swap` and answer ``err`` instead."""

    def __init__(self, err: Err) -> None:
        super().__init__(err.error)
        self.err = err


async def swap(
    store: AtomicKeyValueStore,
    key: str,
    change: Callable[[str | None], tuple[str | None, R]],
) -> R | Err:
    """Apply ``change`` to the value at ``key`` atomically; its result, or a refusal.

    ``change(current)`` answers ``(new_value, result)``: ``new_value`` ``None`` writes nothing
    (the result is answered as it is). It may raise `Refusal`. When another writer changed the
    key between the read and the write, ``change`` runs again on the fresh value, after a short
    random pause that grows with each lost round, so nothing either writer did is lost.
    """
    for attempt in range(MAX_ATTEMPTS):
        current = await store.get(key)
        try:
            new_value, result = change(current)
        except Refusal as refusal:
            return refusal.err
        if new_value is None or await store.compare_and_set(key, current, new_value):
            return result
        await anyio.sleep(random.uniform(0, 0.001 * min(attempt + 1, 20)))
    return Err(
        f"gave up after {MAX_ATTEMPTS} rounds: other agents kept changing the same data; try again",
        ErrorCode.EXECUTION_FAILED,
        cause="contention",
    )
