"""`Cleanups`: what runs when a registry closes, last added first."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TypeAlias

from toolwire.errors import RegistrationError

__all__ = ["Cleanup", "Cleanups"]

Cleanup: TypeAlias = Callable[[], Awaitable[None] | None]
"""A sync or async function of no arguments."""

logger = logging.getLogger("toolwire.registry")


class Cleanups:
    """A stack of cleanups, each run once by `run`."""

    __slots__ = ("_stack",)

    def __init__(self) -> None:
        self._stack: list[Cleanup] = []

    def add(self, cleanup: Cleanup) -> None:
        """Run ``cleanup`` on the next `run`, before those added earlier.

        Raises:
            RegistrationError: ``cleanup`` is not callable.
        """
        if not callable(cleanup):
            raise RegistrationError(f"add_cleanup() takes a callable, got {cleanup!r}")
        self._stack.append(cleanup)

    async def run(self) -> None:
        """Run the cleanups, last added first. Each runs once; one that fails is logged and
        the others still run."""
        while self._stack:
            cleanup = self._stack.pop()
            try:
                pending = cleanup()
                if inspect.isawaitable(pending):
                    await pending
            except Exception:
                logger.exception("toolwire: a registry cleanup failed")
