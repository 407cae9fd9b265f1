"""`McpProvider`: an MCP server's tools as toolwire tools, over stdio or streamable HTTP.

```python
from toolwire.mcp import McpProvider, McpServerConfig

files = McpServerConfig(
    name="files", command="npx", args=("@modelcontextprotocol/server-filesystem", ".")
)
async with McpProvider(files) as provider:       # connects, lists the tools
    registry.register_all(provider.tools)        # or: bridge_into(registry, provider)
```

Each remote tool becomes ``mcp__<server>__<tool>``: toolset ``mcp``, ``output_is_untrusted``,
``max_result_chars`` = the server's result cap (50,000 by default), timeout = the server's call
timeout, available only while connected. Keeping the connection (reconnecting with back-off, the
keep-alive, re-listing when the tools change) is `toolwire.mcp.client.connection.McpConnection`'s
job; this module turns its listings into tools and makes the calls. The abort signal and the timeout
cancel a call, which the SDK forwards to the server as ``notifications/cancelled``.

A call is never retried: one that was in flight when the link dropped may have run, so it is
answered ``execution_failed`` saying so, rather than run twice. While a call is in flight the
keep-alive does not probe the server (`toolwire.mcp.client.link.Link.calling`): a server busy with a
long call is not declared dead under it.

A bridged tool keeps the server's ``outputSchema`` (a ``structuredContent`` that does not match it
is answered ``execution_failed``), its title and its hints. A tool that requires task augmentation
(``execution.taskSupport == "required"``, 2025-11-25) is offered when the server takes
task-augmented calls, and called as a task: created, polled at the server's interval, its result
fetched, and cancelled on the server (``tasks/cancel``) when the toolwire call is aborted or times
out (`toolwire.mcp.client.tasks`). Other tools are called directly; on 2026-07-28 the client
declares the Tasks extension, so a server may still answer any call with a task, which is followed
the same way. A task that may have run and gives no result is ``execution_failed``. Definitions are
pinned (`toolwire.mcp.client.pinning`, the server's ``pin`` setting): a tool whose definition
changed since it was first seen is not served until the change is approved (`McpProvider.approve`,
``toolwire mcp approve``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as mt
from mcp.shared.exceptions import MCPError

from toolwire.context import ProgressEvent, ToolContext
from toolwire.mcp._conversion import (
    annotations_from_mcp,
    error_from_mcp,
    local_names,
    local_tool_name,
    result_from_mcp,
    rewrite_definitions,
)
from toolwire.mcp._settings import DEFAULT_MCP_RESULT_LIMIT_CHARS, McpServerConfig
from toolwire.mcp.client.connection import McpConnection, describe_error
from toolwire.mcp.client.handlers import ClientHandlers
from toolwire.mcp.client.pinning import DefinitionPins
from toolwire.mcp.client.tasks import TaskFailure, call_as_task, task_status_to
from toolwire.providers._base import ProviderContext
from toolwire.results import Err, ErrorCode, ToolResult
from toolwire.tools import Tool

__all__ = ["DEFAULT_MCP_RESULT_LIMIT_CHARS", "McpProvider", "McpServerConfig", "ToolsListener"]

logger = logging.getLogger("toolwire.mcp")

ToolsListener = Callable[[Sequence[Tool]], None]
"""Receives a provider's new tool list whenever it changes."""
_Tools = list[Tool]  # the method `list` shadows the builtin inside the class
_Names = list[str]


class McpProvider:
    """A `ToolProvider` over one MCP server; run it with ``async with`` or `running`.

    ``async with provider`` starts the connection and waits for it (raising `ProviderError`
    when it does not come within ``connect_timeout_s``); ``async with provider.running()``
    starts it without waiting (its tools appear once it connects). Either way the connection
    is stopped, and its tasks ended, when the block is left. A provider runs once.

    Args:
        config: The server.
        listen: Called with the new tool list whenever it changes (after a reconnect or a
            ``list_changed``); use `bridge_into` to keep a registry in step.
        handlers: How the host answers the server's sampling, elicitation and roots
            requests, and where its logs go (`toolwire.mcp.client.handlers.ClientHandlers`);
            only the capabilities of the handlers given are declared.
        pins: Where tool definitions are pinned (`DefinitionPins.in_backend` of the
            configured store); ``None`` pins them in memory, for this provider's life only.

    Attributes:
        config: The server.
        connection: The supervised connection the tools are called over.
    """

    def __init__(
        self,
        config: McpServerConfig,
        *,
        listen: ToolsListener | None = None,
        handlers: ClientHandlers | None = None,
        pins: DefinitionPins | None = None,
    ) -> None:
        self.config = config
        self.pins = pins if pins is not None else _memory_pins()
        self.connection = McpConnection(config, on_tools=self._publish, handlers=handlers)
        self._listeners: list[ToolsListener] = [listen] if listen is not None else []
        self._tools: tuple[Tool, ...] = ()

    # -- ToolProvider -------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """``mcp:<server>``."""
        return self.connection.id

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
        return self.connection.connected

    def on_tools_changed(self, listener: ToolsListener) -> Callable[[], None]:
        """Call ``listener`` with the new list whenever the tools change; returns a remover."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    # -- lifecycle ----------------------------------------------------------------------------

    async def wait_connected(self, timeout_s: float | None = None) -> None:
        """Wait for a connection (``timeout_s`` defaults to the config's connect timeout).

        Raises:
            ProviderError: No connection within the timeout; the message has the last error.
        """
        await self.connection.wait_connected(timeout_s)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[McpProvider]:
        """Keep the server connected for the block, without waiting for the first connection.

        Raises:
            ProviderError: This provider already ran (create a new one).
        """
        async with self.connection.running():
            yield self

    async def __aenter__(self) -> McpProvider:
        """Start the connection and wait for it (see `wait_connected`)."""
        await self.connection.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        """Disconnect; returns once the connection's tasks have ended (the exception, if any,
        passed on to the connection's exit as it came)."""
        return await self.connection.__aexit__(*exc_info)

    # -- tools --------------------------------------------------------------------------------

    async def approve(self, tool: str | None = None) -> _Names:
        """Approve the changed definition of ``tool`` (of every changed tool when ``None``) and
        serve it at once; the remote names approved."""
        approved = await self.pins.approve(self.config.name, tool)
        if approved:
            await self.connection.republish()
        return approved

    async def _publish(self, remote: Sequence[mt.Tool]) -> None:
        served = await self.pins.screen(self.config.name, remote, self.config.pin)
        tools = self._convert(served)
        self._tools = tuple(tools)
        for listener in tuple(self._listeners):
            try:
                listener(list(tools))
            except Exception:
                logger.exception("MCP server %r: a tools listener failed", self.config.name)

    def _convert(self, remote: Sequence[mt.Tool]) -> _Tools:
        tools: _Tools = []
        for name, spec in local_names(self.config.name, remote, self.config.tools):
            if _requires_task(spec) and not self.connection.task_calls:
                logger.info(
                    "MCP server %r: tool %r requires task augmentation, which the server "
                    "does not take on this connection; not offered",
                    self.config.name,
                    spec.name,
                )
                continue
            try:
                tools.append(self._tool(name, spec))
            except Exception as exc:
                logger.warning(
                    "MCP server %r: tool %r skipped: %s", self.config.name, spec.name, exc
                )
        return tools

    def _tool(self, name: str, spec: mt.Tool) -> Tool:
        remote_name = spec.name
        as_task = _requires_task(spec)

        async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
            return await self.call(remote_name, args, ctx, as_task=as_task)

        schema = rewrite_definitions(spec.input_schema or {})
        schema.setdefault("type", "object")
        output = rewrite_definitions(spec.output_schema) if spec.output_schema else None
        return Tool(
            name=name,
            description=spec.description or spec.title or spec.name,
            schema=schema,
            execute=execute,
            toolset="mcp",
            max_result_chars=self.config.result_limit_chars,
            is_available=lambda: self.connected,
            defer_loading=self.config.defer_loading,  # found by tool_search (tool_search/)
            output_is_untrusted=True,
            sink=self.config.is_sink(remote_name),  # [mcp.servers.x] sink: the flow rule
            timeout_s=self.config.timeout_s,
            annotations=annotations_from_mcp(spec.annotations, spec.title),
            output_schema=output,
            icons=tuple(
                icon.model_dump(by_alias=True, exclude_none=True) for icon in spec.icons or ()
            ),
        )

    # -- calls --------------------------------------------------------------------------------

    async def call(
        self, remote_name: str, args: dict[str, Any], ctx: ToolContext, *, as_task: bool = False
    ) -> ToolResult:
        """Call ``remote_name`` on the server; failures are results, never exceptions.

        ``as_task``: call it with task augmentation (a tool that requires it, 2025-11-25);
        the whole call, polling included, is bounded by the server's call timeout.
        """
        link = self.connection.link
        server = self.config.name
        if link is None:
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

        async def on_status(message: str) -> None:  # a remote task's statusMessage
            await on_progress(0.0, None, message)

        timeout = self.config.timeout_s
        with anyio.CancelScope() as scope, link.calling(), task_status_to(on_status):
            unsubscribe = ctx.abort_signal.subscribe(scope.cancel)
            try:
                with anyio.move_on_after(timeout) as deadline:  # a task's polls included
                    if as_task:
                        result = await call_as_task(
                            link.client,
                            remote_name,
                            args,
                            read_timeout_s=timeout,
                            progress_callback=on_progress,
                        )
                    else:
                        result = await link.client.call_tool(
                            remote_name,
                            args,
                            read_timeout_seconds=timeout,
                            progress_callback=on_progress,
                        )
                if deadline.cancelled_caught:
                    return error_from_mcp(server, mt.REQUEST_TIMEOUT, "", timeout)
            except TaskFailure as exc:
                return Err(
                    f"MCP server '{server}': {exc}; the call may or may not have run",
                    ErrorCode.EXECUTION_FAILED,
                    cause=exc.cause,
                )
            except MCPError as exc:
                if exc.code == mt.CONNECTION_CLOSED:
                    link.drop()
                return error_from_mcp(server, exc.code, exc.message, self.config.timeout_s)
            except RuntimeError as exc:
                if not _breaks_output_schema(exc):
                    link.drop()
                    return _connection_lost(server, exc)
                return Err(
                    f"MCP server '{server}': the result of '{remote_name}' does not match the "
                    f"tool's outputSchema: {exc}",
                    ErrorCode.EXECUTION_FAILED,
                    cause="mcp_output_invalid",
                )
            except Exception as exc:  # the transport broke under the call
                link.drop()
                return _connection_lost(server, exc)
            finally:
                unsubscribe()
        if scope.cancelled_caught:
            return Err(
                f"aborted: {ctx.abort_signal.reason}", ErrorCode.EXECUTION_FAILED, cause="aborted"
            )
        return result_from_mcp(result)


def _requires_task(spec: mt.Tool) -> bool:
    return spec.execution is not None and spec.execution.task_support == "required"


def _breaks_output_schema(exc: RuntimeError) -> bool:
    """Whether the SDK raised ``exc`` because a result broke the tool's ``outputSchema`` (it
    validates every result against it, raising a bare `RuntimeError`)."""
    message = str(exc)
    return message.startswith(("Invalid structured content", "Invalid schema for tool")) or (
        "has an output schema but did not return structured content" in message
    )


def _connection_lost(server: str, exc: BaseException) -> Err:
    return Err(
        f"MCP server '{server}': the connection failed during the call "
        f"({describe_error(exc)}); it may or may not have run",
        ErrorCode.EXECUTION_FAILED,
        cause="mcp_connection_lost",
    )


def _memory_pins() -> DefinitionPins:
    from toolwire.stores._memory import MemoryKeyValueBackend

    return DefinitionPins.in_backend(MemoryKeyValueBackend())
