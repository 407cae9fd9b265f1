"""Running a blocking function in a worker thread without letting it end the event loop.

``KeyboardInterrupt``, ``SystemExit`` and ``GeneratorExit`` raised in a worker thread would
cross back into the event loop as themselves: asyncio re-raises the first two out of the loop,
and a ``GeneratorExit`` delivered through a future closes the awaiting coroutine chain instead
of propagating through it. `run_in_worker` carries them back as `WorkerThreadExit`, an ordinary
exception the pipeline unwraps, so they answer their own call like any other failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

__all__ = ["WorkerThreadExit", "run_in_worker"]

T = TypeVar("T")


class WorkerThreadExit(Exception):
    """A ``KeyboardInterrupt``, ``SystemExit`` or ``GeneratorExit`` a worker thread raised.

    Attributes:
        original: The exception the function raised.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original) or type(original).__name__)
        self.original = original


def _guarded(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except (KeyboardInterrupt, SystemExit, GeneratorExit) as exc:
        raise WorkerThreadExit(exc) from exc


async def run_in_worker(fn: Callable[[], T], *, abandon_on_cancel: bool = True) -> T:
    """Run ``fn()`` in anyio's worker threads; a fatal exception comes back as
    `WorkerThreadExit`. A cancelled caller abandons the thread by default (it runs on, its
    result dropped), so a blocking tool cannot hold its call past the timeout."""
    return await anyio.to_thread.run_sync(_guarded, fn, abandon_on_cancel=abandon_on_cancel)
