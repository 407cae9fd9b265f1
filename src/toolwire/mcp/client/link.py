"""`Link`: one live connection to an MCP server; `hold_link` opens one and keeps it fresh.

`hold_link` connects the SDK client, subscribes to tool changes, lists the tools, reports the
link as up, and then holds it until it is lost, running three loops meanwhile:

- **re-listing** whenever the server says its tools changed (``notifications/tools/list_changed``
  on handshake-era links, a ``subscriptions/listen`` event on 2026-07-28 ones);
- the **keep-alive**, which notices a silent server: a re-listing of the tools, answered within
  5 s or the link is lost (``ping`` is gone from 2026-07-28, and the SDK warns on every ping
  even on handshake-era links; ``tools/list`` exists in both and also catches tool changes a
  server forgot to announce).
  It stays quiet while a call is in flight (`Link.calling`): a server busy with a long call may
  not answer a probe, and the call's own timeout already bounds the wait;
- the **listen stream** itself (2026-07-28), subscribed *before* the first listing so no change
  can fall in between.

Reconnecting is not done here: `toolwire.mcp.client.connection.McpConnection` calls `hold_link`
again.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import mcp_types as mt
from mcp.client.client import Client

from toolwire.mcp._settings import McpServerConfig
from toolwire.mcp.client._transports import open_transport
from toolwire.mcp.client.handlers import ClientHandlers
from toolwire.mcp.client.tasks import TasksClientExtension, route_task_progress
from toolwire.version import __version__

__all__ = ["Link", "ListingHandler", "hold_link", "list_all_tools"]

logger = logging.getLogger("toolwire.mcp")

ListingHandler = Callable[[list[mt.Tool]], Awaitable[None]]
"""Receives every complete listing of a server's tools (all pages); awaited."""

_MAX_PAGES = 100
_KEEPALIVE_ANSWER_S = 5.0


@dataclass(slots=True, eq=False)
class Link:
    """One live connection: the SDK client and the events that say it is gone or stale.

    Attributes:
        client: The connected SDK client; calls go through it.
        lost: Set when the connection is gone (the supervisor then reconnects).
        refresh_wanted: Set when the server said its tools changed.
    """

    client: Client
    lost: anyio.Event = field(default_factory=anyio.Event)
    refresh_wanted: anyio.Event = field(default_factory=anyio.Event)
    in_flight: int = 0

    @property
    def alive(self) -> bool:
        """Whether the link has not been lost."""
        return not self.lost.is_set()

    def drop(self) -> None:
        """Count the link as lost (a call found it broken); the supervisor reconnects."""
        self.lost.set()

    @contextmanager
    def calling(self) -> Iterator[None]:
        """Count a call as in flight for the block; the keep-alive does not probe meanwhile."""
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1


async def hold_link(
    config: McpServerConfig,
    *,
    on_listing: ListingHandler,
    on_up: Callable[[Link], None],
    handlers: ClientHandlers | None = None,
    on_connected: Callable[[Client], None] | None = None,
) -> None:
    """Connect to ``config``'s server and hold the link until it is lost, then return.

    Args:
        config: The server.
        on_listing: Called with every listing: the first one before ``on_up``, then each
            re-listing (after a change notification, and as the 2026-07-28 keep-alive).
        on_up: Called once the link is connected, subscribed and listed.
        handlers: The host's answers to the server's sampling, elicitation and roots
            requests, and where its logs go (`toolwire.mcp.client.handlers`).
        on_connected: Called with the client once it is connected, before the first
            listing (its protocol revision and the server's capabilities are known then).

    Raises:
        TimeoutError: Connecting, subscribing and the first listing together took longer
            than ``config.connect_timeout_s`` (the deadline is lifted once the link is up).
        Exception: Whatever the transport or the SDK raised while connecting.
    """
    ended = anyio.Event()
    link: Link | None = None

    async def on_message(message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification) and link is not None:
            link.refresh_wanted.set()
        elif isinstance(message, mt.ProgressNotification):  # a task's (task_client.py)
            await route_task_progress(client, message)
        elif isinstance(message, Exception) and link is not None:
            logger.debug("MCP server %r: transport error %r", config.name, message)

    client = Client(
        open_transport(config, ended),
        mode=config.protocol,
        read_timeout_seconds=config.timeout_s,
        message_handler=on_message,
        client_info=mt.Implementation(name="toolwire", version=__version__),
        cache=None,
        extensions=[TasksClientExtension()],  # 2026-07-28 tasks (toolwire.mcp.client.tasks)
        **(handlers or ClientHandlers()).client_options(),
    )
    with anyio.CancelScope(deadline=anyio.current_time() + config.connect_timeout_s) as scope:
        async with client, anyio.create_task_group() as group:
            link = Link(client=client)
            try:
                if on_connected is not None:
                    on_connected(client)
                group.start_soon(_forward_event, ended, link.lost)
                capability = client.server_capabilities.tools
                if capability is not None and capability.list_changed:
                    await group.start(_listen_loop, link, config.name)
                await on_listing(await list_all_tools(client))
                scope.deadline = math.inf
                group.start_soon(_refresh_loop, link, config.name, on_listing)
                if config.ping_interval_s is not None:
                    group.start_soon(_keepalive_loop, link, config.ping_interval_s, on_listing)
                on_up(link)
                await link.lost.wait()
            finally:  # a link held by a caller reads as lost once it is closed
                link.drop()
                group.cancel_scope.cancel()
    if scope.cancelled_caught:
        raise TimeoutError(f"connecting took longer than {config.connect_timeout_s:g} s")


async def list_all_tools(client: Client) -> list[mt.Tool]:
    """Every tool the server lists, following ``next_cursor`` (at most 100 pages)."""
    remote: list[mt.Tool] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        remote.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return remote


async def _refresh_loop(link: Link, server: str, on_listing: ListingHandler) -> None:
    while True:
        await link.refresh_wanted.wait()
        link.refresh_wanted = anyio.Event()
        try:
            await on_listing(await list_all_tools(link.client))
        except Exception as exc:
            logger.warning("MCP server %r: re-listing tools failed: %s", server, exc)
            link.drop()


async def _keepalive_loop(link: Link, interval: float, on_listing: ListingHandler) -> None:
    while True:
        await anyio.sleep(interval)
        if link.in_flight:  # busy, not silent: the calls' own timeouts bound the wait
            continue
        try:
            with anyio.fail_after(min(_KEEPALIVE_ANSWER_S, interval)):
                listing = await list_all_tools(link.client)
        except TimeoutError:
            if link.in_flight:  # a call began during the probe: the server may just be busy
                continue
            link.drop()
            return
        except Exception:
            link.drop()
            return
        await on_listing(listing)


async def _listen_loop(
    link: Link,
    server: str,
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    from mcp.client.subscriptions import ListenNotSupportedError

    try:
        async with link.client.listen(tools_list_changed=True) as subscription:
            task_status.started()
            async for _event in subscription:
                link.refresh_wanted.set()
    except ListenNotSupportedError:
        # handshake era: list_changed arrives as a notification instead
        task_status.started()
    except Exception as exc:
        logger.debug("MCP server %r: listen stream ended: %r", server, exc)
        link.drop()
        raise


async def _forward_event(source: anyio.Event, target: anyio.Event) -> None:
    await source.wait()
    target.set()
