"""`MontyWorkers`: the pool of Monty interpreter processes programs run in.

Monty (``pydantic-monty``) runs Python in a Rust interpreter inside a worker subprocess: no
filesystem, network or environment, a heap and time limit enforced by the interpreter, and a
crashed worker is replaced by the pool while the host lives on. The pool starts on the first
program (so a registry that never runs one starts nothing) and stops with the registry.
``pydantic-monty`` is the ``code-mode`` extra, imported only here and only then.

The pool is Monty's *synchronous* one, driven from a thread of our own (`WorkerSession.run`):
every call a program makes is a round trip to its worker, and the asynchronous pool pays an
event-loop wake-up for each on top (about twice the cost per call, measured in
``benchmarks/bench_code_mode.py``). The thread steps the program from one batch of calls to
the next, so the event loop sees the program once per batch; it also gives the worker back
after the program's answer has gone (a session's exit is a round trip too). There are as many
threads as workers, each serving one checked-out session at a time, its jobs in order.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from types import ModuleType
from typing import Any, TypeAlias, TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import EventLoopToken, current_token

from toolwire.code_mode._settings import CodeModeSettings
from toolwire.errors import ConfigurationError

__all__ = ["MontyWorkers", "WorkerSession", "load_monty"]

_T = TypeVar("_T")
_BACKSTOP_S = 5.0
_Job: TypeAlias = "tuple[Callable[..., Any], tuple[Any, ...], _Reply | None] | None"


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


class _Reply:
    """Where a job's answer goes: set in the thread, awaited on the event loop."""

    __slots__ = ("error", "event", "result", "token")

    def __init__(self, token: EventLoopToken) -> None:
        self.token = token
        self.event = anyio.Event()
        self.result: Any = None
        self.error: BaseException | None = None


class _StepThread:
    """A thread that runs jobs in order: a session's entry, its steps, its exit."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="toolwire-monty", daemon=True)
        self._thread.start()

    async def call(self, token: EventLoopToken, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` after the jobs before it. Cancelled, the job still runs."""
        reply = _Reply(token)
        self._jobs.put((fn, args, reply))
        await reply.event.wait()
        if reply.error is not None:
            raise reply.error
        result: _T = reply.result
        return result

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` after the jobs before it, nobody waiting for it."""
        self._jobs.put((fn, args, None))

    def stop(self) -> None:
        """End the thread after the jobs before this."""
        self._jobs.put(None)

    def join(self, timeout: float) -> None:
        """Wait for the thread to end."""
        self._thread.join(timeout)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, args, reply = job
            try:
                result = fn(*args)
            except BaseException as exc:  # handed to the waiting program
                if reply is None:
                    continue
                reply.error = exc
            else:
                if reply is None:
                    continue
                reply.result = result
            _soon(reply.token, reply.event.set)


def _soon(token: EventLoopToken, fn: Callable[..., Any], *args: Any) -> None:
    """``fn(*args)`` on the token's event loop, without waiting for it (the thread's way back:
    a wake-up of the loop, no more)."""
    with suppress(RuntimeError):  # the loop has closed: nobody waits
        token.backend_class.run_sync_soon(fn, args, token.native_token)


class WorkerSession:
    """One checked-out worker and the thread that steps it.

    ``session`` is the entered ``MontySession``; `run` calls a function of it in the thread.
    """

    def __init__(self, session: Any, thread: _StepThread, token: EventLoopToken) -> None:
        self.session = session
        self._thread = thread
        self._token = token
        self.idle = True
        """No step is running (none was left running by a cancelled program)."""

    async def run(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` in the session's thread; a cancelled caller leaves it to finish."""
        try:
            return await self._thread.call(self._token, fn, *args)
        except anyio.get_cancelled_exc_class():
            self.idle = False
            raise

    def close(self) -> None:
        """Give the worker back once the thread has run what it was given."""
        self._thread.post(self.session.__exit__, None, None, None)


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
        self._slots = anyio.Semaphore(settings.max_processes)  # one per worker and thread
        self._free: list[_StepThread] = []
        self._threads: list[_StepThread] = []

    async def _started(self) -> Any:
        if self._pool is None:
            async with self._lock:
                if self._pool is None:
                    monty = load_monty()
                    pool = monty.Monty(
                        min_processes=1,
                        max_processes=self._settings.max_processes,
                        # A backstop behind the wall clock, not a race with it: a program
                        # stopped by `timeout_s` is answered `limit`, never `crashed`.
                        request_timeout=self._settings.timeout_s + _BACKSTOP_S,
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
        token = current_token()
        await self._slots.acquire()
        thread = self._free.pop() if self._free else self._new_thread()
        try:
            await thread.call(token, session.__enter__)
        except BaseException:
            self._give_back(thread)  # a cancelled entry: the exit below still runs after it
            thread.post(_exit_quietly, session)
            raise
        worker = WorkerSession(session, thread, token)
        try:
            yield worker
        finally:
            worker.close()
            if worker.idle:
                self._give_back(thread)  # its next session enters after this one's exit
            else:  # a step still runs (the program ran out of time): free it afterwards
                thread.post(_soon, token, self._give_back, thread)

    def _new_thread(self) -> _StepThread:
        thread = _StepThread()
        self._threads.append(thread)
        return thread

    def _give_back(self, thread: _StepThread) -> None:
        if thread in self._threads:  # not stopped by `aclose` meanwhile
            self._free.append(thread)
        self._slots.release()

    async def aclose(self) -> None:
        """Stop the workers and their threads (idempotent)."""
        pool, self._pool = self._pool, None
        threads, self._threads, self._free = self._threads, [], []
        with anyio.CancelScope(shield=True):
            for thread in threads:
                thread.stop()  # after the exits already posted
            for thread in threads:
                await anyio.to_thread.run_sync(thread.join, 2.0)
            if pool is not None:
                await anyio.to_thread.run_sync(pool.__exit__, None, None, None)
                # The pool returns before its workers are reaped; a process that exits then
                # can abort in the interpreter's finalisation (pydantic-monty 1.4). Wait for them.
                with anyio.move_on_after(2.0):
                    while self._pids & _monty_children():
                        await anyio.sleep(0.005)


def _exit_quietly(session: Any) -> None:
    with suppress(Exception):
        session.__exit__(None, None, None)


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
