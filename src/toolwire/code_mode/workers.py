"""`MontyWorkers`: the pool of Monty interpreter processes programs run in.

Monty (``pydantic-monty``) runs Python in a Rust interpreter inside a worker subprocess: no
filesystem, network or environment, a heap and time limit enforced by the interpreter, and a
crashed worker is replaced by the pool while the host lives on. The pool starts on the first
program (so a registry that never runs one starts nothing) and stops with the registry.
``pydantic-monty`` is the ``code-mode`` extra, imported only here and only then.

The pool is Monty's *synchronous* one, driven from a thread (`WorkerSession.run`): every call
a program makes is one round trip to its worker, and the asynchronous pool pays an event-loop
wake-up for each on top (about twice the cost per call, measured in
``benchmarks/bench_code_mode.py``). A thread steps the program from one batch of calls to the
next; the event loop sees the program once per batch.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import ModuleType
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from toolwire.code_mode.settings import CodeModeSettings
from toolwire.errors import ConfigurationError

__all__ = ["MontyWorkers", "WorkerSession", "load_monty"]

_T = TypeVar("_T")


def load_monty() -> ModuleType:
    """The ``pydantic_monty`` module.

    Raises:
        ConfigurationError: it is not installed; the message names the extra.
    """
    try:
        import pydantic_monty
    except ImportError as exc:
        raise ConfigurationError(
            "run_code needs the Monty interpreter: pip install 'toolwire[code-mode]' "
            f"(pydantic-monty): {exc}"
        ) from None
    return pydantic_monty


class WorkerSession:
    """One checked-out worker, stepped from a thread.

    ``session`` is the entered ``MontySession``. `run` calls a function of it in a thread (one
    at a time); a step abandoned by a cancelled program closes the session when it returns.
    """

    def __init__(self, session: Any, limiter: anyio.CapacityLimiter) -> None:
        self.session = session
        self._limiter = limiter
        self._lock = threading.Lock()
        self._busy = False
        self._closing = False
        self._exited = False

    async def run(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` in a thread; a cancelled caller leaves it to finish on its own."""
        with self._lock:
            self._busy = True
        return await anyio.to_thread.run_sync(
            self._step, fn, *args, limiter=self._limiter, abandon_on_cancel=True
        )

    def _step(self, fn: Callable[..., _T], *args: Any) -> _T:
        try:
            return fn(*args)
        finally:
            with self._lock:
                self._busy = False
                closing = self._closing
            if closing:
                self._exit()

    async def close(self) -> None:
        """Give the worker back (after the running step, if one was abandoned)."""
        with self._lock:
            self._closing = True
            busy = self._busy
        if not busy:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self._exit)

    def _exit(self) -> None:
        with self._lock:
            if self._exited:
                return
            self._exited = True
        self.session.__exit__(None, None, None)


class MontyWorkers:
    """A lazily started Monty pool; `checkout` gives one program a worker.

    Args:
        settings: The limits each checkout carries (``cpu_time_s``, ``max_memory_bytes``).
    """

    def __init__(self, settings: CodeModeSettings) -> None:
        self._settings = settings
        self._pool: Any = None
        self._lock = anyio.Lock()
        self._pids: set[int] = set()
        # Threads waiting for a free worker, and threads stepping a checked-out one: kept apart
        # so that programs queued for a worker never hold the threads running programs need.
        self._waiting = anyio.CapacityLimiter(settings.max_processes)
        self._stepping = anyio.CapacityLimiter(settings.max_processes)

    async def _started(self) -> Any:
        if self._pool is None:
            async with self._lock:
                if self._pool is None:
                    monty = load_monty()
                    pool = monty.Monty(
                        min_processes=1,
                        max_processes=self._settings.max_processes,
                        request_timeout=self._settings.timeout_s,
                    )
                    before = _monty_children()
                    await anyio.to_thread.run_sync(pool.__enter__)
                    self._pids = _monty_children() - before
                    self._pool = pool
        return self._pool

    @asynccontextmanager
    async def checkout(self, modules: dict[str, Any]) -> AsyncIterator[WorkerSession]:
        """A worker (a `WorkerSession`) under the settings' limits, with ``modules``
        importable (the tool namespaces), given back when the block ends."""
        pool = await self._started()
        settings = self._settings
        limits = {
            "max_feed_duration_secs": settings.cpu_time_s,
            "max_memory": settings.max_memory_bytes,
            "max_suspensions": settings.max_inner_calls * 3 + 100,
        }
        session = pool.checkout(
            script_name="program.py",
            limits=limits,
            external_modules=modules,
            os_policy={"sleep": "zero"},
        )
        await anyio.to_thread.run_sync(session.__enter__, limiter=self._waiting)
        worker = WorkerSession(session, self._stepping)
        try:
            yield worker
        finally:
            await worker.close()

    async def aclose(self) -> None:
        """Stop the workers (idempotent)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(pool.__exit__, None, None, None)
                # The pool returns before its workers are reaped; a process that exits then
                # can abort in the interpreter's finalisation (pydantic-monty 1.4). Wait for them.
                with anyio.move_on_after(2.0):
                    while self._pids & _monty_children():
                        await anyio.sleep(0.005)


def _monty_children() -> set[int]:
    """This process's children running the ``monty`` binary (Linux ``/proc``; empty elsewhere)."""
    found: set[int] = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    me = os.getpid()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
            if parent != me:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().split(b"\0", 1)[0]
        except (OSError, ValueError, IndexError):
            continue
        if command.endswith(b"monty") or not command:  # a zombie has no command line
            found.add(int(entry))
    return found
