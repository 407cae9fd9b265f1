"""Run an adapter's asynchronous call from synchronous framework code: `run_sync`.

toolwire's pipeline is asynchronous. A framework's synchronous path (LangGraph's ``invoke``:
``ToolNode`` runs the calls of a response in worker threads, each calling the tool's ``_run``)
needs a result without an event loop of its own. The calls are sent to one event loop that
toolwire runs in a daemon thread, started on first use and shared by every synchronous call, so
the calls of one response, arriving from several worker threads, still meet in one loop and can
be gathered into one batch.

Resources the registry opens lazily (connections, clients) are opened on that loop the first
time a synchronous call uses them; a registry driven both synchronously and asynchronously at
once uses them from two loops, so use one way per registry.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from toolwire.errors import ConfigurationError

__all__ = ["run_sync"]

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run the coroutine ``make()`` on toolwire's background loop and wait for its result.

    Safe from any thread, including one whose own event loop is running (the call then blocks
    that loop, as any synchronous call does; the work itself runs elsewhere, so it cannot
    deadlock on it). Exceptions of the coroutine are raised here.

    Raises:
        ConfigurationError: called from a call already running on the background loop (a
            tool that calls a tool synchronously): waiting there would never end.
    """
    loop = _background_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        raise ConfigurationError(
            "a toolwire tool was called synchronously from inside another toolwire call; "
            "await it (ainvoke) instead"
        )
    return asyncio.run_coroutine_threadsafe(make(), loop).result()


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="toolwire-sync-calls", daemon=True
            )
            thread.start()
            _loop = loop
        return _loop
