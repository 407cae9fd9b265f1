"""Path locks for the file tools: readers share a file, a writer has it to itself.

Two ``patch_file`` calls on one file in one batch must apply one after the other (the second
reads what the first wrote) instead of the second silently undoing the first; and a write must
not slip between a read and the STALE_WRITE record that read leaves. Reads alone change
nothing, so they never wait for each other: fifty readers of one file run as fifty readers of
fifty files do.

`PathLocks` is a readers–writer lock per path:

* `PathLocks.reading` lets any number of readers in at once, unless a writer is inside or
  waiting (a waiting writer goes first, so a stream of readers cannot starve it);
* `PathLocks.writing` waits until no reader and no other writer is inside.

Entries live only while someone holds or waits for them. The locks order the calls of one
process (one event loop); another process, or a program outside toolwire, is not held back.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import anyio

__all__ = ["FILE_LOCKS", "PathLocks"]


@dataclass(slots=True)
class _Gate:
    """The state of one path. Every change happens between awaits, so no lock guards it."""

    readers: int = 0
    writing: bool = False
    writers_waiting: int = 0
    users: int = 0
    changed: anyio.Event = field(default_factory=anyio.Event)

    def wake(self) -> None:
        """Tell every waiter the state changed (each one looks again)."""
        self.changed.set()
        self.changed = anyio.Event()


class PathLocks:
    """One readers–writer lock per path; see the module docstring."""

    __slots__ = ("_gates",)

    def __init__(self) -> None:
        self._gates: dict[str, _Gate] = {}

    @contextlib.asynccontextmanager
    async def reading(self, path: str) -> AsyncIterator[None]:
        """Hold ``path`` shared with other readers for the body of the ``async with``."""
        async with self._using(path) as gate:
            while gate.writing or gate.writers_waiting:
                await gate.changed.wait()
            gate.readers += 1
            try:
                yield
            finally:
                gate.readers -= 1
                gate.wake()

    @contextlib.asynccontextmanager
    async def writing(self, path: str) -> AsyncIterator[None]:
        """Hold ``path`` alone (no reader, no other writer) for the body of the ``async with``."""
        async with self._using(path) as gate:
            gate.writers_waiting += 1
            try:
                while gate.writing or gate.readers:
                    await gate.changed.wait()
            finally:
                gate.writers_waiting -= 1
                gate.wake()  # a writer giving up (cancelled) lets the readers behind it in
            gate.writing = True
            try:
                yield
            finally:
                gate.writing = False
                gate.wake()

    @contextlib.asynccontextmanager
    async def _using(self, path: str) -> AsyncIterator[_Gate]:
        gate = self._gates.get(path)
        if gate is None:
            gate = self._gates[path] = _Gate()
        gate.users += 1
        try:
            yield gate
        finally:
            gate.users -= 1
            if gate.users == 0 and self._gates.get(path) is gate:
                del self._gates[path]

    def __len__(self) -> int:
        return len(self._gates)


FILE_LOCKS = PathLocks()
"""The process-wide path locks the file tools share (keyed by the path a file resolves to)."""
