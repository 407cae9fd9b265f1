"""`MontyWorkers`: the pool of Monty interpreter processes programs run in.

Monty (``pydantic-monty``) runs Python in a Rust interpreter inside a worker subprocess: no
filesystem, network or environment, a heap and time limit enforced by the interpreter, and a
crashed worker is replaced by the pool while the host lives on. The pool starts on the first
program (so a registry that never runs one starts nothing) and stops with the registry.
``pydantic-monty`` is the ``code-mode`` extra, imported only here and only then.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import anyio

from toolwire.code_mode.settings import CodeModeSettings
from toolwire.errors import ConfigurationError

__all__ = ["MontyWorkers", "load_monty"]


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


class MontyWorkers:
    """A lazily started ``AsyncMonty`` pool; `checkout` gives one program a worker.

    Args:
        settings: The limits each checkout carries (``cpu_time_s``, ``max_memory_bytes``).
    """

    def __init__(self, settings: CodeModeSettings) -> None:
        self._settings = settings
        self._pool: Any = None
        self._lock = anyio.Lock()
        self._pids: set[int] = set()

    async def _started(self) -> Any:
        if self._pool is None:
            async with self._lock:
                if self._pool is None:
                    monty = load_monty()
                    pool = monty.AsyncMonty(
                        min_processes=1,
                        max_processes=self._settings.max_processes,
                        request_timeout=self._settings.timeout_s,
                    )
                    before = _monty_children()
                    await pool.__aenter__()
                    self._pids = _monty_children() - before
                    self._pool = pool
        return self._pool

    async def checkout(self, modules: dict[str, Any]) -> Any:
        """An ``AsyncMontySession`` (enter it with ``async with``) under the settings' limits,
        with ``modules`` importable (the tool namespaces)."""
        pool = await self._started()
        settings = self._settings
        limits = {
            "max_feed_duration_secs": settings.cpu_time_s,
            "max_memory": settings.max_memory_bytes,
            "max_suspensions": settings.max_inner_calls * 3 + 100,
        }
        return pool.checkout(
            script_name="program.py",
            limits=limits,
            external_modules=modules,
            os_policy={"sleep": "zero"},
        )

    async def aclose(self) -> None:
        """Stop the workers (idempotent)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            with anyio.CancelScope(shield=True):
                await pool.__aexit__(None, None, None)
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
