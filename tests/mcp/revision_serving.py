"""A registry served over streamable HTTP in the test's event loop, and SDK clients for it on
each protocol generation (the revision and rich-results tests)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.client.client import Client
from mcp_helpers import WAIT_S

from toolwire import ToolRegistry
from toolwire.mcp import ServeOptions, serve_http

MODES = ("legacy", "auto")
"""The handshake era (``initialize``) and 2026-07-28 (``server/discover``, then per-request)."""


@asynccontextmanager
async def served(registry: ToolRegistry, options: ServeOptions | None = None) -> AsyncIterator[str]:
    """``registry`` at ``http://127.0.0.1:<free port>/mcp`` until the block ends; the URL."""
    urls: list[str] = []
    ready = anyio.Event()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    async with anyio.create_task_group() as group:
        group.start_soon(
            lambda: serve_http(registry, options or ServeOptions(), port=0, on_ready=on_ready)
        )
        with anyio.fail_after(WAIT_S):
            await ready.wait()
        yield urls[0]
        group.cancel_scope.cancel()


def sdk_client(url: str, mode: str, **options: Any) -> Client:
    """The SDK's client for ``url`` in ``mode`` (``"legacy"`` or ``"auto"``)."""
    return Client(url, mode=mode, read_timeout_seconds=WAIT_S, **options)
