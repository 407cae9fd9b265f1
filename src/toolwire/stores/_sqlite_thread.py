"""`ConnectionThread`: one thread that owns a SQLite connection and runs queued operations.

A hop through a thread pool per operation costs more than the SQLite work itself, so the store
keeps one dedicated thread. Operations queued while it is busy run as one batch, and a batch
that writes runs in one ``BEGIN IMMEDIATE`` transaction: concurrent writers share a commit. The
event loop is woken with its thread-safe "call soon" hook (asyncio or trio), never by blocking
the thread on the loop.
"""

from __future__ import annotations

import functools
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import anyio
import anyio.lowlevel

from toolwire.errors import StoreError

__all__ = ["ConnectionThread", "open_wal"]

T = TypeVar("T")
_MAX_BATCH = 256


@dataclass(kw_only=True, slots=True)
class _Operation(Generic[T]):
    run: Callable[[sqlite3.Connection], T]
    writes: bool
    wake: Callable[[Callable[[], object]], object]
    done: anyio.Event = field(default_factory=anyio.Event)
    result: T | None = None
    error: Exception | None = None

    def execute(self, connection: sqlite3.Connection) -> None:
        """Run and keep the outcome; `sqlite3.Error` propagates so the batch can be redone."""
        try:
            self.result = self.run(connection)
            self.error = None
        except sqlite3.Error:
            raise
        except Exception as error:  # handed to the awaiting task, which re-raises it
            self.error = error


def _set_all(events: list[anyio.Event]) -> None:
    for event in events:
        event.set()


def _wake_function() -> Callable[[Callable[[], object]], object]:
    """The current loop's thread-safe "run this soon" function (asyncio or trio)."""
    native: Any = anyio.lowlevel.current_token().native_token
    wake: Callable[[Callable[[], object]], object]
    wake = getattr(native, "call_soon_threadsafe", None) or native.run_sync_soon
    return wake


class ConnectionThread:
    """Runs functions of one `sqlite3.Connection` on a dedicated daemon thread.

    Args:
        connect: Opens the connection; called on the thread, on first use.
        name: The thread's name.
    """

    def __init__(self, connect: Callable[[], sqlite3.Connection], *, name: str) -> None:
        self._connect = connect
        self._name = name
        self._queue: queue.SimpleQueue[_Operation[Any] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._open_error: StoreError | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether `aclose` was called."""
        return self._closed

    async def run(self, function: Callable[[sqlite3.Connection], T], *, writes: bool) -> T:
        """Run ``function(connection)`` on the thread; batched writers share a transaction.

        Raises:
            StoreError: the backend is closed, the database cannot be opened, or SQLite failed.
        """
        if self._closed:
            raise StoreError("the SQLite key-value backend is closed; create a new one")
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
            self._thread.start()
        operation: _Operation[T] = _Operation(run=function, writes=writes, wake=_wake_function())
        self._queue.put(operation)
        await operation.done.wait()
        if operation.error is not None:
            raise operation.error
        return operation.result  # type: ignore[return-value]

    async def aclose(self) -> None:
        """Finish queued operations, close the connection and stop the thread."""
        if self._closed:
            return
        self._closed = True
        if self._thread is not None:
            self._queue.put(None)
            await anyio.to_thread.run_sync(self._thread.join)

    def _serve(self) -> None:
        connection: sqlite3.Connection | None = None
        try:
            connection = self._connect()
        except (sqlite3.Error, OSError) as error:
            self._open_error = StoreError(f"cannot open the SQLite key-value store: {error}")
        try:
            while True:
                first = self._queue.get()
                if first is None:
                    return
                batch = [first]
                stop = False
                while len(batch) < _MAX_BATCH:
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stop = True
                        break
                    batch.append(more)
                self._execute(connection, batch)
                if stop:
                    return
        finally:
            if connection is not None:
                connection.close()

    def _execute(self, connection: sqlite3.Connection | None, batch: list[_Operation[Any]]) -> None:
        try:
            if connection is None:
                for operation in batch:
                    operation.error = self._open_error
            elif len(batch) > 1 and any(operation.writes for operation in batch):
                self._execute_together(connection, batch)
            else:
                for operation in batch:
                    self._execute_alone(connection, operation)
        finally:
            by_loop: dict[Callable[[Callable[[], object]], object], list[anyio.Event]] = {}
            for operation in batch:
                by_loop.setdefault(operation.wake, []).append(operation.done)
            for wake, events in by_loop.items():
                wake(functools.partial(_set_all, events))

    def _execute_together(
        self, connection: sqlite3.Connection, batch: list[_Operation[Any]]
    ) -> None:
        try:
            connection.execute("BEGIN IMMEDIATE")
            for operation in batch:
                operation.execute(connection)
            connection.execute("COMMIT")
        except sqlite3.Error:
            # One statement broke the shared transaction: redo each operation on its own.
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            for operation in batch:
                self._execute_alone(connection, operation)

    @staticmethod
    def _execute_alone(connection: sqlite3.Connection, operation: _Operation[Any]) -> None:
        try:
            if not operation.writes:
                operation.execute(connection)
                return
            connection.execute("BEGIN IMMEDIATE")
            operation.execute(connection)
            connection.execute("COMMIT" if operation.error is None else "ROLLBACK")
        except sqlite3.Error as error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            operation.error = StoreError(f"SQLite failed: {error}")


def open_wal(
    path: str, busy_timeout_s: float, create: Callable[[sqlite3.Connection], object]
) -> sqlite3.Connection:
    """A connection to the SQLite file ``path`` (its folder made first) in WAL mode, after
    ``create`` made the schema.

    ``synchronous = NORMAL``: in WAL mode that loses no committed data when the process dies;
    only a power cut can lose the last commits (never tear them). Switching to WAL and creating
    the schema can answer SQLITE_BUSY at once, without the busy handler, while another
    connection opens the same new file: both are retried (a transaction ``create`` left open
    rolled back) until ``busy_timeout_s`` is spent.
    """
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=busy_timeout_s, isolation_level=None)
    deadline = time.monotonic() + busy_timeout_s
    pause = 0.005
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            create(connection)
            return connection
        except sqlite3.OperationalError as error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            if "locked" not in str(error) or time.monotonic() + pause > deadline:
                connection.close()
                raise
        except sqlite3.Error:
            connection.close()
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
