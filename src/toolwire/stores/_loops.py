"""`require_asyncio`: the guard of the stores whose drivers run on asyncio only.

redis-py and asyncpg are asyncio libraries. Called from trio they fail deep inside with a bare
``RuntimeError: no running event loop`` (or a ``TypeError`` from trio's scheduler); the Redis
and PostgreSQL backends call this first, so the caller reads what is wrong and what to do. No
maintained bridge makes them run on trio (trio-asyncio needs the whole program to run inside
its loop), so refusing clearly is the honest answer; the memory and SQLite stores run on both.
"""

from __future__ import annotations

import asyncio

from toolwire.errors import StoreError

__all__ = ["on_asyncio", "require_asyncio"]


def on_asyncio() -> bool:
    """Whether the calling code runs on an asyncio event loop (trio runs none)."""
    return asyncio._get_running_loop() is not None


def require_asyncio(store: str, driver: str) -> None:
    """Return when running on asyncio.

    Raises:
        StoreError: the caller runs on another event loop (trio), which ``driver`` cannot use.
    """
    if not on_asyncio():
        raise StoreError(
            f"{store} needs asyncio: its driver, {driver}, is an asyncio library and this code "
            "runs on another event loop (trio); run the agent on asyncio "
            "(anyio.run(main, backend='asyncio')), or use the SQLite or memory store, which "
            "run on trio too"
        )
