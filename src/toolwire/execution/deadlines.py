"""`DeadlineQueue`: one event-loop timer for all the deadlines of a batch (asyncio).

A batch of 200 calls that each wait would otherwise arm 200 loop timers, each a handle object
pushed into the loop's heap, where every comparison is a Python-level ``TimerHandle.__lt__``,
and cancel them one by one when the calls end. The queue keeps the deadlines in a heap of
plain tuples (compared in C) and arms a single loop timer for the earliest; a call that ends
first is dropped lazily, when its deadline comes up or the batch closes.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable
from itertools import count

__all__ = ["DeadlineQueue"]

Expiry = Callable[[], None]
"""What runs when a deadline passes; it must itself ignore a call that already ended."""


class DeadlineQueue:
    """The deadlines of one batch's calls on one asyncio loop, behind one loop timer."""

    __slots__ = ("_armed_at", "_heap", "_loop", "_resolution", "_seq", "_timer")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._heap: list[tuple[float, int, Expiry]] = []
        self._seq = count()
        self._timer: asyncio.TimerHandle | None = None
        self._armed_at = float("inf")
        # the loop runs a timer once it is due within its clock resolution: so does the queue
        self._resolution: float = getattr(loop, "_clock_resolution", 0.001)

    def add(self, delay: float, expire: Expiry) -> None:
        """Run ``expire`` once ``delay`` seconds from now have passed (on the loop)."""
        when = self._loop.time() + delay
        heapq.heappush(self._heap, (when, next(self._seq), expire))
        if when < self._armed_at:
            self._arm(when)

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._armed_at = when
        self._timer = self._loop.call_at(when, self._expire)

    def _expire(self) -> None:
        self._timer = None
        self._armed_at = float("inf")
        heap = self._heap
        now = self._loop.time() + self._resolution
        due: list[Expiry] = []
        while heap and heap[0][0] <= now:
            due.append(heapq.heappop(heap)[2])
        if heap:
            self._arm(heap[0][0])
        for expire in due:
            expire()

    def __len__(self) -> int:
        """How many deadlines are pending (ended calls included until their time comes)."""
        return len(self._heap)

    def close(self) -> None:
        """The batch is over: disarm, and drop every pending deadline."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._armed_at = float("inf")
        self._heap.clear()
