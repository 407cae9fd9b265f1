"""`McpConnection`: keeps one MCP server connected, reconnecting with back-off.

```python
async with McpConnection(config, on_tools=publish) as connection:   # waits for the link
    result = await connection.link.client.call_tool("add", {"a": 1, "b": 2})
```

A supervisor task holds the link (`toolwire.mcp.client.link.hold_link`: keep-alive,
``list_changed``, re-listing) and, when it is lost or cannot be opened, tries again after a back-off
of 0.25 s doubling to 5 s. ``on_tools`` hears the server's tool listing whenever it differs from the
last one, across reconnects too.

The supervisor runs in a task group that exists only inside ``async with connection`` (which
waits for the first connection and raises `ProviderError` if it does not come in time) or
``async with connection.running()`` (which does not wait); leaving the block stops it, and no
task outlives the block. A connection runs once.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from types import TracebackType

import anyio
import mcp_types as mt
from mcp.client.client import Client

from toolwire.errors import ProviderError
from toolwire.mcp._settings import McpServerConfig
from toolwire.mcp.client.handlers import ClientHandlers
from toolwire.mcp.client.link import Link, hold_link
from toolwire.mcp.client.tasks import supports_task_calls

__all__ = ["McpConnection", "ToolsHandler", "describe_error"]

logger = logging.getLogger("toolwire.mcp")

ToolsHandler = Callable[[Sequence[mt.Tool]], Awaitable[None] | None]
"""Receives the server's tools (as the server lists them) whenever they change; awaited when
it returns an awaitable."""

_BACKOFF_START_S = 0.25
_BACKOFF_MAX_S = 5.0


class McpConnection:
    """The supervised connection to one MCP server; use ``async with`` or `running`.

    Args:
        config: The server.
        on_tools: Called with the server's tools whenever a listing differs from the
            previous one (the first non-empty listing included).
        handlers: The host's answers to the server's requests (`ClientHandlers`).
    """

    def __init__(
        self,
        config: McpServerConfig,
        *,
        on_tools: ToolsHandler,
        handlers: ClientHandlers | None = None,
    ) -> None:
        self.config = config
        self._handlers = handlers
        self._on_tools = on_tools
        self._remote_tools: list[mt.Tool] = []
        self._task_calls = False
        self._listed_task_calls = False
        self._link: Link | None = None
        self._connected = anyio.Event()
        self._last_error: BaseException | None = None
        self._started = False
        self._stopping = False
        self._exit: AsyncExitStack | None = None

    @property
    def id(self) -> str:
        """``mcp:<server>``, the id of the provider over this connection."""
        return f"mcp:{self.config.name}"

    @property
    def link(self) -> Link | None:
        """The live link, or ``None`` while disconnected."""
        link = self._link
        return link if link is not None and link.alive else None

    @property
    def connected(self) -> bool:
        """Whether a connection is up right now."""
        return self.link is not None

    @property
    def last_error(self) -> BaseException | None:
        """Why the last attempt to connect failed; ``None`` once connected."""
        return self._last_error

    @property
    def task_calls(self) -> bool:
        """Whether the server takes task-augmented ``tools/call`` on the current link (2025-11-25
        core tasks; `toolwire.mcp.client.tasks.supports_task_calls`)."""
        return self._task_calls

    @property
    def remote_tools(self) -> list[mt.Tool]:
        """The server's tools as last listed (a new list; empty before the first listing)."""
        return list(self._remote_tools)

    async def wait_connected(self, timeout_s: float | None = None) -> None:
        """Wait for a connection (``timeout_s`` defaults to the config's connect timeout).

        Raises:
            ProviderError: No connection within the timeout; the message has the last error.
        """
        limit = self.config.connect_timeout_s if timeout_s is None else timeout_s
        with anyio.move_on_after(limit):
            await self._connected.wait()
            return
        last = _innermost(self._last_error)
        detail = f": {type(last).__name__}: {describe_error(last)}" if last is not None else ""
        raise ProviderError(
            f"MCP server {self.config.name!r} did not connect within {limit:g} s{detail}",
            provider_id=self.id,
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[McpConnection]:
        """Run the supervisor for the block, without waiting for the first connection.

        Raises:
            ProviderError: This connection already ran (create a new one).
        """
        if self._started:
            raise ProviderError(
                f"the connection to MCP server {self.config.name!r} already ran; create a new one",
                provider_id=self.id,
            )
        self._started = True
        error: BaseException | None = None
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._supervise)
                try:
                    yield self
                except anyio.get_cancelled_exc_class():
                    raise
                except BaseException as exc:
                    # Raised again below the group, which would wrap it in an exception group.
                    error = exc
                finally:
                    self._stopping = True
                    group.cancel_scope.cancel()
        finally:
            self._link = None
        if error is not None:
            raise error

    async def __aenter__(self) -> McpConnection:
        """Start the supervisor and wait for the first connection.

        Raises:
            ProviderError: No connection within ``connect_timeout_s`` (the supervisor is
                stopped again), or this connection already ran.
        """
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(self.running())
            await self.wait_connected()
            self._exit = stack.pop_all()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        """Disconnect and stop the supervisor; returns once its tasks have ended."""
        stack, self._exit = self._exit, None
        if stack is None:
            return None
        return await stack.__aexit__(exc_type, exc_val, exc_tb)

    # -- the supervisor -----------------------------------------------------------------------

    async def _supervise(self) -> None:
        backoff = _BACKOFF_START_S
        while True:
            try:
                await hold_link(
                    self.config,
                    on_listing=self._on_listing,
                    on_up=self._on_up,
                    handlers=self._handlers,
                    on_connected=self._on_connected,
                )
                backoff = _BACKOFF_START_S
                if not self._stopping:
                    logger.warning("MCP server %r: connection lost; reconnecting", self.config.name)
            except Exception as exc:
                self._last_error = exc
                logger.warning(
                    "MCP server %r: connection failed: %s", self.config.name, describe_error(exc)
                )
            finally:
                self._link = None
                if self._connected.is_set():
                    self._connected = anyio.Event()
            await anyio.sleep(backoff)
            backoff = min(backoff * 2, _BACKOFF_MAX_S)

    def _on_up(self, link: Link) -> None:
        self._link = link
        self._last_error = None
        self._connected.set()
        logger.info("MCP server %r connected (%d tools)", self.config.name, len(self._remote_tools))

    def _on_connected(self, client: Client) -> None:
        self._task_calls = supports_task_calls(client)

    async def _on_listing(self, remote: list[mt.Tool]) -> None:
        if remote == self._remote_tools and self._task_calls == self._listed_task_calls:
            return
        self._remote_tools = remote
        self._listed_task_calls = self._task_calls  # which tools are offered depends on it
        await self.republish()

    async def republish(self) -> None:
        """Hand the last listing to ``on_tools`` again (after a pinned definition was approved)."""
        try:
            outcome = self._on_tools(list(self._remote_tools))
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            logger.exception("MCP server %r: the tools handler failed", self.config.name)


def describe_error(exc: BaseException | None) -> str:
    """An exception's message, looking inside single-member exception groups."""
    inner = _innermost(exc)
    return str(inner) or type(inner).__name__


def _innermost(exc: BaseException | None) -> BaseException | None:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
