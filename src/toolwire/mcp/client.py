"""`McpProvider`: an MCP server's tools as toolwire tools, over stdio or streamable HTTP.

```python
from toolwire.mcp import McpProvider, McpServerConfig

files = McpServerConfig(
    name="files", command="npx", args=("@modelcontextprotocol/server-filesystem", ".")
)
async with McpProvider(files) as provider:
    registry.register_all(provider.tools)        # or: bridge_into(registry, provider)
```

Each remote tool becomes ``mcp__<server>__<tool>``: toolset ``mcp``, ``output_is_untrusted``,
``max_result_chars`` = the server's result cap (50,000 by default), timeout = the server's call
timeout, available only while connected. A supervisor task keeps the connection: it reconnects
with backoff when the link drops (a stdio server exiting is noticed at once; a silent HTTP server
by the keepalive ping), and re-lists the tools when the server says they changed
(``notifications/tools/list_changed`` on handshake-era connections, a ``subscriptions/listen``
stream on 2026-07-28 ones). The abort signal and the timeout cancel the call, which the SDK
forwards to the server as ``notifications/cancelled``.

A call is never retried: one that was in flight when the link dropped may have run, so it is
answered ``execution_failed`` saying so, rather than run twice.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import anyio
import anyio.abc
import mcp_types as mt
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from toolwire import __version__
from toolwire.context import ProgressEvent, ToolContext
from toolwire.errors import ProviderError
from toolwire.mcp.conversion import (
    annotations_from_mcp,
    error_from_mcp,
    local_names,
    local_tool_name,
    result_from_mcp,
    rewrite_definitions,
)
from toolwire.mcp.settings import DEFAULT_MCP_RESULT_LIMIT_CHARS, McpServerConfig
from toolwire.mcp.transports import open_transport
from toolwire.providers.base import ProviderContext
from toolwire.results import Err, ErrorCode, ToolResult
from toolwire.tools import Tool

__all__ = ["DEFAULT_MCP_RESULT_LIMIT_CHARS", "McpProvider", "McpServerConfig"]

logger = logging.getLogger("toolwire.mcp")

_MAX_PAGES = 100
_BACKOFF_START_S = 0.25
_BACKOFF_MAX_S = 5.0


@dataclass(slots=True)
class _Link:
    """One live connection: the client and the event that says it is gone."""

    client: Client
    lost: anyio.Event = field(default_factory=anyio.Event)
    refresh_wanted: anyio.Event = field(default_factory=anyio.Event)


ToolsListener = Callable[[Sequence[Tool]], None]
_Tools = list[Tool]
_RemoteTools = list[mt.Tool]


class McpProvider:
    """A `ToolProvider` over one MCP server; use it as ``async with`` (or `start`/`aclose`).

    Args:
        config: The server.
        listen: Called with the new tool list whenever it changes (after a reconnect or a
            ``list_changed``); use `bridge_into` to keep a registry in step.
    """

    def __init__(self, config: McpServerConfig, *, listen: ToolsListener | None = None) -> None:
        self.config = config
        self._listeners: list[ToolsListener] = [listen] if listen is not None else []
        self._tools: tuple[Tool, ...] = ()
        self._link: _Link | None = None
        self._connected = anyio.Event()
        self._task_group: anyio.abc.TaskGroup | None = None
        self._last_error: BaseException | None = None
        self._closed = False

    # -- ToolProvider -------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """``mcp:<server>``."""
        return f"mcp:{self.config.name}"

    def list(self, ctx: ProviderContext) -> list[Tool]:
        """The server's tools as last listed (a new list; empty before the first connection)."""
        return list(self._tools)

    @property
    def tools(self) -> _Tools:
        """The server's tools as last listed."""
        return list(self._tools)

    @property
    def connected(self) -> bool:
        """Whether a connection is up right now."""
        return self._link is not None and not self._link.lost.is_set()

    def on_tools_changed(self, listener: ToolsListener) -> Callable[[], None]:
        """Call ``listener`` with the new list whenever the tools change; returns a remover."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the connection supervisor in the background (returns at once)."""
        if self._task_group is not None:
            return
        if self._closed:
            raise ProviderError(
                "this McpProvider was closed; create a new one", provider_id=self.id
            )
        group = anyio.create_task_group()
        await group.__aenter__()
        self._task_group = group
        group.start_soon(self._supervise)

    async def wait_connected(self, timeout_s: float | None = None) -> None:
        """Wait for a connection (``timeout_s`` defaults to the config's connect timeout).

        Raises:
            ProviderError: no connection within the timeout; the message has the last error.
        """
        limit = self.config.connect_timeout_s if timeout_s is None else timeout_s
        with anyio.move_on_after(limit):
            await self._connected.wait()
            return
        last = self._last_error
        detail = f": {type(last).__name__}: {_describe(last)}" if last is not None else ""
        raise ProviderError(
            f"MCP server {self.config.name!r} did not connect within {limit:g} s{detail}",
            provider_id=self.id,
        )

    async def aclose(self) -> None:
        """Disconnect and stop the supervisor; idempotent."""
        self._closed = True
        group, self._task_group = self._task_group, None
        if group is not None:
            group.cancel_scope.cancel()
            await group.__aexit__(None, None, None)
        self._link = None

    async def __aenter__(self) -> McpProvider:
        await self.start()
        try:
            await self.wait_connected()
        except BaseException:
            await self.aclose()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- the supervisor -----------------------------------------------------------------------

    async def _supervise(self) -> None:
        backoff = _BACKOFF_START_S
        while True:
            try:
                await self._connect_once()
                backoff = _BACKOFF_START_S
            except Exception as exc:
                self._last_error = exc
                logger.warning(
                    "MCP server %r: connection failed: %s", self.config.name, _describe(exc)
                )
            finally:
                self._link = None
                if self._connected.is_set():
                    self._connected = anyio.Event()
            await anyio.sleep(backoff)
            backoff = min(backoff * 2, _BACKOFF_MAX_S)

    async def _connect_once(self) -> None:
        ended = anyio.Event()
        link: _Link | None = None

        async def on_message(message: Any) -> None:
            if isinstance(message, mt.ToolListChangedNotification) and link is not None:
                link.refresh_wanted.set()
            elif isinstance(message, Exception) and link is not None:
                logger.debug("MCP server %r: transport error %r", self.config.name, message)

        client = Client(
            open_transport(self.config, ended),
            mode=self.config.protocol,
            read_timeout_seconds=self.config.timeout_s,
            message_handler=on_message,
            client_info=mt.Implementation(name="toolwire", version=__version__),
            cache=None,
        )
        # The deadline covers connecting, subscribing and the first listing, then is lifted.
        deadline = anyio.current_time() + self.config.connect_timeout_s
        with anyio.CancelScope(deadline=deadline) as scope:
            async with client, anyio.create_task_group() as group:
                link = _Link(client=client)
                group.start_soon(_forward_event, ended, link.lost)
                capability = client.server_capabilities.tools
                if capability is not None and capability.list_changed:
                    # Subscribed before the first listing, so no change can fall in between.
                    await group.start(self._listen_loop, link)
                await self._refresh(link)
                scope.deadline = math.inf
                group.start_soon(self._refresh_loop, link)
                if self.config.ping_interval_s is not None:
                    group.start_soon(self._keepalive_loop, link, self.config.ping_interval_s)
                self._link = link
                self._last_error = None
                self._connected.set()
                logger.info(
                    "MCP server %r connected (%d tools)", self.config.name, len(self._tools)
                )
                await link.lost.wait()
                group.cancel_scope.cancel()
            if not self._closed:
                logger.warning("MCP server %r: connection lost; reconnecting", self.config.name)
        if scope.cancelled_caught:
            raise TimeoutError(f"connecting took longer than {self.config.connect_timeout_s:g} s")

    async def _refresh_loop(self, link: _Link) -> None:
        while True:
            await link.refresh_wanted.wait()
            link.refresh_wanted = anyio.Event()
            try:
                await self._refresh(link)
            except Exception as exc:
                logger.warning("MCP server %r: re-listing tools failed: %s", self.config.name, exc)
                link.lost.set()

    async def _keepalive_loop(self, link: _Link, interval: float) -> None:
        """Notice a silent server: ``ping`` on handshake-era links, a re-listing on 2026-07-28
        ones (which dropped ``ping``), answered within 5 s or the link counts as lost."""
        modern = link.client.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS
        while True:
            await anyio.sleep(interval)
            try:
                with anyio.fail_after(min(5.0, interval)):
                    if modern:
                        await self._refresh(link)
                    else:
                        await link.client.send_ping()
            except Exception:
                link.lost.set()
                return

    async def _listen_loop(
        self, link: _Link, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
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
            logger.debug("MCP server %r: listen stream ended: %r", self.config.name, exc)
            link.lost.set()
            raise

    async def _refresh(self, link: _Link) -> None:
        """List the server's tools (every page) and publish them when they changed."""
        remote: _RemoteTools = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await link.client.list_tools(cursor=cursor, cache_mode="refresh")
            remote.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        tools = self._convert(remote)
        if [_fingerprint(t) for t in tools] == [_fingerprint(t) for t in self._tools]:
            return
        self._tools = tuple(tools)
        for listener in tuple(self._listeners):
            try:
                listener(list(tools))
            except Exception:
                logger.exception("MCP server %r: a tools listener failed", self.config.name)

    def _convert(self, remote: _RemoteTools) -> _Tools:
        tools: _Tools = []
        for name, spec in local_names(self.config.name, remote, self.config.tools):
            try:
                tools.append(self._tool(name, spec))
            except Exception as exc:
                logger.warning(
                    "MCP server %r: tool %r skipped: %s", self.config.name, spec.name, exc
                )
        return tools

    def _tool(self, name: str, spec: mt.Tool) -> Tool:
        remote_name = spec.name

        async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
            return await self.call(remote_name, args, ctx)

        schema = rewrite_definitions(spec.input_schema or {})
        schema.setdefault("type", "object")
        return Tool(
            name=name,
            description=spec.description or spec.title or spec.name,
            schema=schema,
            execute=execute,
            toolset="mcp",
            max_result_chars=self.config.result_limit_chars,
            is_available=lambda: self.connected,
            output_is_untrusted=True,
            timeout_s=self.config.timeout_s,
            annotations=annotations_from_mcp(spec.annotations, spec.title),
        )

    # -- calls --------------------------------------------------------------------------------

    async def call(self, remote_name: str, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Call ``remote_name`` on the server; failures are results, never exceptions."""
        link = self._link
        server = self.config.name
        if link is None or link.lost.is_set():
            return Err(
                f"MCP server '{server}' is not connected",
                ErrorCode.NOT_AVAILABLE,
                reason="mcp_disconnected",
            )

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            percent = progress * 100.0 / total if total else None
            ctx.emit(
                ProgressEvent(
                    tool_name=local_tool_name(server, remote_name),
                    message=message or f"{progress:g}" + (f"/{total:g}" if total else ""),
                    percent=percent,
                    audience="user",
                )
            )

        with anyio.CancelScope() as scope:
            unsubscribe = ctx.abort_signal.subscribe(scope.cancel)
            try:
                result = await link.client.call_tool(
                    remote_name,
                    args,
                    read_timeout_seconds=self.config.timeout_s,
                    progress_callback=on_progress,
                )
            except MCPError as exc:
                if exc.code == mt.CONNECTION_CLOSED:
                    link.lost.set()
                return error_from_mcp(server, exc.code, exc.message, self.config.timeout_s)
            except Exception as exc:  # the transport broke under the call
                link.lost.set()
                return Err(
                    f"MCP server '{server}': the connection failed during the call "
                    f"({_describe(exc)}); it may or may not have run",
                    ErrorCode.EXECUTION_FAILED,
                    cause="mcp_connection_lost",
                )
            finally:
                unsubscribe()
        if scope.cancelled_caught:
            return Err(
                f"aborted: {ctx.abort_signal.reason}", ErrorCode.EXECUTION_FAILED, cause="aborted"
            )
        return result_from_mcp(result)


async def _forward_event(source: anyio.Event, target: anyio.Event) -> None:
    await source.wait()
    target.set()


def _fingerprint(tool: Tool) -> tuple[Any, ...]:
    import json

    return (tool.name, tool.description, json.dumps(tool.schema, sort_keys=True, default=str))


def _describe(exc: BaseException | None) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__
