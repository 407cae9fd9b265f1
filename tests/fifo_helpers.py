"""Helpers for tests with named pipes: is a reader left on one, and a rescue for regressions.

A worker thread blocked in ``open`` of a FIFO cannot be cancelled, so a test that would hang on
a regression frees it with `rescued` instead, and then fails.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections.abc import Iterator
from pathlib import Path


def no_reader_holds(fifo: Path) -> bool:
    """Whether nothing has ``fifo`` open for reading (a reader blocked in ``open`` counts)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        return exc.errno == errno.ENXIO
    return False


@contextlib.contextmanager
def rescued(fifo: Path, after_s: float = 8.0) -> Iterator[None]:
    """From ``after_s`` on, keep freeing readers blocked on ``fifo``: a regression then fails
    the test instead of hanging it (a thread blocked in ``open`` cannot be cancelled)."""
    done = threading.Event()

    def let_go() -> None:
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    def rescue() -> None:
        done.wait(after_s)
        while not done.wait(0.2):
            let_go()

    thread = threading.Thread(target=rescue, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        let_go()
