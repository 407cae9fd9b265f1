"""Serve a `ToolRegistry` over MCP (stdio or streamable HTTP) with the SDK's low-level server.

```python
from toolwire.mcp import ServeOptions, serve_registry

await serve_registry(registry, transport="http", host="127.0.0.1", port=8765)
```

What a client gets:

- ``tools/list``: the registry's definitions, with `toolwire.tools.ToolAnnotations` as MCP
  hints (``readOnlyHint``, ``destructiveHint``, ...) and ``outputSchema`` when a tool has one.
- ``tools/call``: one call through the full pipeline (validation, hooks, capabilities, timeout,
  reducer, budget). The outcome goes through the presenter with the per-request budget, so a
  20 MB result arrives trimmed with the ``[truncated — N chars total]`` marker; ``Ok.structured``
  becomes ``structuredContent``; an ``Err`` is ``isError: true``.
- progress: a tool's `ProgressEvent`s with audience ``"user"`` become
  ``notifications/progress`` when the client sent a progress token; others stay internal.
- cancellation: ``notifications/cancelled`` cancels the call (an async tool gets anyio's
  cancellation) and fires its abort signal, which a sync tool's abandoned thread can poll.
- a client that goes away (its HTTP connection or SSE stream closed, stdin closed) aborts its
  calls the same way (`toolwire.mcp.server.hangups`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
from anyio.lowlevel import current_token

from toolwire.context import ProgressEvent, ToolContext
from toolwire.mcp.server._options import (
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
    DEFAULT_SESSION_IDLE_TIMEOUT_S,
    ServeOptions,
)
from toolwire.mcp.server.auth._principals import request_principal
from toolwire.mcp.server.hangups import call_abort_signal
from toolwire.mcp.server.tool_call import CallRequest, ToolCalls, drop_progress
from toolwire.replicas._session_read_records import SessionReadRecords
from toolwire.tools import Tool
from toolwire.version import __version__

if TYPE_CHECKING:  # the SDK loads when a server is built (the lean stdio loop needs none)
    import mcp_types as mt
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.server import Server
    from mcp.server.context import ServerRequestContext

    from toolwire.calls import CallOutcome
    from toolwire.registry import ToolRegistry

__all__ = [
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_MAX_SESSIONS_PER_PRINCIPAL",
    "DEFAULT_SESSION_IDLE_TIMEOUT_S",
    "McpServer",
    "ServeOptions",
    "build_mcp_server",
    "create_mcp_server",
]

logger = logging.getLogger("toolwire.mcp.server")

_PROGRESS_BUFFER = 64


def create_mcp_server(registry: ToolRegistry, options: ServeOptions | None = None) -> Server[Any]:
    """A low-level MCP `Server` whose tools are ``registry``'s (`build_mcp_server`'s ``sdk``).

    Args:
        registry: The tools to serve (its definitions are re-read on every ``tools/list``).
        options: Name, budget, presenter.
    """
    return build_mcp_server(registry, options).sdk


@dataclass(frozen=True, kw_only=True, slots=True)
class McpServer:
    """What `build_mcp_server` built (toolwire's, not the SDK's high-level ``MCPServer``): the
    SDK server, and what the fast paths answer with so that they answer as it does.

    Attributes:
        sdk: The SDK's low-level server (run it, or hand it to a transport).
        calls: Its ``tools/call`` (`toolwire.mcp.server.tool_call.ToolCalls`): registry, presenter,
            base context and per-session read records.
        as_mcp: A tool as its (cached) MCP definition, as ``tools/list`` lists it.
    """

    sdk: Server[Any]
    calls: ToolCalls
    as_mcp: Callable[[Tool], mt.Tool]


def build_mcp_server(registry: ToolRegistry, options: ServeOptions | None = None) -> McpServer:
    """The SDK server of ``registry`` and the state its fast paths share (`McpServer`).

    Args:
        registry: The tools to serve (its definitions are re-read on every ``tools/list``).
        options: Name, budget, presenter.
    """
    import mcp_types as mt

    from toolwire.mcp.server._approval_requests import call_with_approval
    from toolwire.mcp.server._tasks import serve_tasks
    from toolwire.mcp.server.auth.access import caller_allows
    from toolwire.mcp.server.listing_features import (
        RevisionServer,
        ToolListNotifier,
        listing_cache_hints,
        server_identity_kwargs,
    )
    from toolwire.mcp.server.peer import LogLevels, bind_peer, serve_logging
    from toolwire.mcp.server.result_resources import serve_result_resources
    from toolwire.mcp.server.rich_results import explicit_hints
    from toolwire.mcp.server.session_tools import SessionTools, announce_found

    opts = options or ServeOptions()
    # Which session a request is, and its STALE_WRITE records (replica_records.py).
    sessions = SessionReadRecords(opts.replicas, stateless=opts.stateless_sessions)
    calls = ToolCalls.serving(registry, opts, sessions)  # tools/call, on every path
    log_levels = LogLevels()  # what each session chose with logging/setLevel
    # tools/list_changed (toolwire.mcp.server.listing_features)
    notifier = ToolListNotifier(registry)
    listed: dict[str, tuple[Tool, mt.Tool]] = {}
    view = SessionTools(registry)  # deferred tools found per session (tool search)

    def as_mcp(tool: Tool) -> mt.Tool:
        cached = listed.get(tool.name)
        if cached is not None and cached[0] is tool:
            return cached[1]
        spec = mt.Tool(
            name=tool.name,
            title=tool.annotations.title if tool.annotations else None,
            description=tool.description,
            input_schema=dict(tool.schema),
            output_schema=dict(tool.output_schema) if tool.output_schema is not None else None,
            annotations=explicit_hints(tool.annotations),  # every hint set (rich_results)
            icons=[mt.Icon.model_validate(icon) for icon in tool.icons] or None,
        )
        listed[tool.name] = (tool, spec)
        return spec

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListToolsResult:
        tools = await view.tools(sessions.session_id(ctx), request_principal(ctx.request))
        return mt.ListToolsResult(tools=[as_mcp(t) for t in tools], **view.cache_hint())

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: mt.CallToolRequestParams
    ) -> dict[str, Any]:
        request = CallRequest(
            name=params.name,
            arguments=params.arguments or {},
            call_id=str(ctx.request_id) if ctx.request_id is not None else "mcp",
            session_id=sessions.session_id(ctx),
            principal=request_principal(ctx.request),  # the credential's, or LOCAL
        )
        wants_progress = bool(ctx.meta and ctx.meta.get("progress_token") is not None)
        send: MemoryObjectSendStream[ProgressEvent] | None = None
        if wants_progress:
            send, receive = anyio.create_memory_object_stream[ProgressEvent](_PROGRESS_BUFFER)
        emit = _progress_emitter(send)

        async def run(tool_ctx: ToolContext) -> CallOutcome | dict[str, Any]:
            # What only this path runs: the session's found deferred tools, the client's
            # peer, the approval question (answered input_required on 2026-07-28).
            gate = await view.gate(request.name, request.session_id, request.principal)
            with bind_peer(ctx, request.session_id, log_levels, params.input_responses) as peer:
                outcome = await call_with_approval(
                    registry, ctx, params, tool_ctx, request.call_id, gate
                )
            await announce_found(ctx, outcome)
            asked = peer.input_required()  # 2026-07-28: the tool asked the client (peer.py)
            return outcome if asked is None else asked

        # The signal fires when the client cancels or goes away: async tools are cancelled,
        # a sync tool's thread (abandoned by the pipeline) polls it, commands are killed.
        with call_abort_signal(ctx.request) as signal:
            if send is None:
                return await calls.call(request, signal, emit=emit, run=run)
            async with anyio.create_task_group() as group:
                group.start_soon(_forward_progress, ctx, receive)
                try:
                    answer = await calls.call(request, signal, emit=emit, run=run)
                finally:
                    send.close()
            return answer

    def input_schema(name: str) -> dict[str, Any] | None:
        tool = registry.get(name)  # a tool hidden from the caller is as absent as an unknown one
        return dict(tool.schema) if tool is not None and caller_allows(tool) else None

    server: Server[Any] = RevisionServer(  # tools.listChanged on the legacy handshake too
        opts.name,
        version=__version__,
        instructions=opts.instructions,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        lifespan=notifier.lifespan,
        cache_hints=listing_cache_hints(opts.tools_list_ttl_s, authenticated=opts.auth is not None),
        **server_identity_kwargs(opts.identity),
    )
    # Registered directly so the handler can answer with the wire dict: the runner validates
    # and dumps every result anyway, and building a model first would do that work twice.
    server.add_request_handler("tools/call", mt.CallToolRequestParams, call_tool)
    serve_tasks(  # task-augmented tools/call and tasks/* (toolwire.mcp.server._tasks)
        server,
        registry,
        sessions.session_id,
        lambda sid, principal: calls.context(sid, principal, read_mtimes=sessions.mtimes(sid)),
        lambda done, args: calls.result(done, args, drop_progress),
    )
    serve_result_resources(server, registry, sessions.session_id)
    serve_logging(server, log_levels, sessions.session_id)
    notifier.install(server, sessions.session_id)  # tools/list_changed (listing_features.py)
    for install in opts.server_features:
        install(server)
    return McpServer(sdk=server, calls=calls, as_mcp=as_mcp)


def _progress_emitter(
    send: MemoryObjectSendStream[ProgressEvent] | None,
) -> Callable[[ProgressEvent], None]:
    """A sync emitter, callable from the loop or a worker thread; drops events when full."""
    if send is None:
        return drop_progress
    token = current_token()
    loop_thread = threading.get_ident()

    def put(event: ProgressEvent) -> None:
        with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError):
            send.send_nowait(event)

    def emit(event: ProgressEvent) -> None:
        if event.audience != "user":
            return
        if threading.get_ident() == loop_thread:
            put(event)
        else:
            with contextlib.suppress(RuntimeError):  # the loop has gone: nobody to tell
                anyio.from_thread.run_sync(put, event, token=token)

    return emit


async def _forward_progress(
    ctx: ServerRequestContext[Any, Any], receive: MemoryObjectReceiveStream[ProgressEvent]
) -> None:
    """Send user-audience progress as ``notifications/progress`` (monotonic, as MCP requires)."""
    last = 0.0
    count = 0
    async with receive:
        async for event in receive:
            count += 1
            if event.percent is not None:
                value, total = max(float(event.percent), last), 100.0
            else:
                value, total = max(float(count), last), None
            last = value
            try:
                await ctx.session.report_progress(value, total, event.message)
            except Exception:
                logger.debug("progress notification dropped", exc_info=True)
