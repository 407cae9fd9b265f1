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
- a client that goes away (its HTTP connection or SSE stream closed, stdin closed) aborts its calls
  the same way (`toolwire.mcp.server.hangups`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
from anyio.lowlevel import current_token

from toolwire.calls import CallOutcome
from toolwire.context import ProgressEmitter, ProgressEvent, ToolContext
from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth.principals import request_principal
from toolwire.mcp.server.hangups import call_abort_signal
from toolwire.mcp.server.media import media_blocks
from toolwire.mcp.server.options import (
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
    DEFAULT_SESSION_IDLE_TIMEOUT_S,
    ServeOptions,
)
from toolwire.mcp.server.result_resources import result_link
from toolwire.mcp.server.rich_results import structured_text_block
from toolwire.replicas.session_read_records import SessionReadRecords
from toolwire.results import Ok
from toolwire.tools import Tool
from toolwire.version import __version__

if TYPE_CHECKING:  # the SDK loads when a server is built (the lean stdio loop needs none)
    import mcp_types as mt
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.server import Server
    from mcp.server.context import ServerRequestContext

    from toolwire.presenting import Presenter
    from toolwire.registry import ToolRegistry

__all__ = [
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_MAX_SESSIONS_PER_PRINCIPAL",
    "DEFAULT_SESSION_IDLE_TIMEOUT_S",
    "CallPlumbing",
    "ServeOptions",
    "call_plumbing",
    "create_mcp_server",
]

logger = logging.getLogger("toolwire.mcp.server.server")

_PROGRESS_BUFFER = 64
_PRESENT_IN_THREAD_CHARS = 200_000


def create_mcp_server(registry: ToolRegistry, options: ServeOptions | None = None) -> Server[Any]:
    """A low-level MCP `Server` whose tools are ``registry``'s.

    Args:
        registry: The tools to serve (its definitions are re-read on every ``tools/list``).
        options: Name, budget, presenter.
    """
    import mcp_types as mt

    from toolwire.mcp.revision import (
        RevisionServer,
        ToolListNotifier,
        listing_cache_hints,
        server_identity_kwargs,
    )
    from toolwire.mcp.server.approval_requests import call_with_approval
    from toolwire.mcp.server.auth.access import caller_allows
    from toolwire.mcp.server.peer import LogLevels, bind_peer, serve_logging
    from toolwire.mcp.server.result_resources import serve_result_resources
    from toolwire.mcp.server.rich_results import explicit_hints
    from toolwire.mcp.server.session_tools import SessionTools, announce_found
    from toolwire.mcp.server.tasks import serve_tasks

    opts = options or ServeOptions()
    presenter = opts.presenter or _default_presenter(opts.result_budget_chars)
    # Which session a request is, and its STALE_WRITE records (replica_records.py).
    sessions = SessionReadRecords(opts.replicas, stateless=opts.stateless_sessions)
    log_levels = LogLevels()  # what each session chose with logging/setLevel
    notifier = ToolListNotifier(registry)  # tools/list_changed (toolwire.mcp.revision)
    listed: dict[str, tuple[Tool, mt.Tool]] = {}
    view = SessionTools(registry)  # deferred tools found per session (tool search)
    base_ctx = ToolContext(
        session_id=sessions.process_id,
        platform="mcp",
        working_dir=opts.working_dir or os.getcwd(),
        result_budget_chars=opts.result_budget_chars,
    )

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
        principal = request_principal(ctx.request)  # the credential's, or LOCAL
        session_id = sessions.session_id(ctx)
        arguments = params.arguments or {}
        wants_progress = bool(ctx.meta and ctx.meta.get("progress_token") is not None)
        send: MemoryObjectSendStream[ProgressEvent] | None = None
        if wants_progress:
            send, receive = anyio.create_memory_object_stream[ProgressEvent](_PROGRESS_BUFFER)
        emit = _progress_emitter(send)
        call_id = str(ctx.request_id) if ctx.request_id is not None else "mcp"

        async def run(tool_ctx: ToolContext) -> dict[str, Any]:
            gate = await view.gate(params.name, session_id, principal)  # found deferred tools
            with bind_peer(ctx, session_id, log_levels, params.input_responses) as peer:
                outcome = await call_with_approval(registry, ctx, params, tool_ctx, call_id, gate)
            await announce_found(ctx, outcome)
            asked = peer.input_required()  # 2026-07-28: the tool asked the client (peer.py)
            if asked is not None:
                return asked
            if isinstance(outcome, dict):  # input_required: the client asks the user
                return outcome
            tool = registry.get(params.name)
            return await _to_mcp_result(
                outcome, tool, presenter, arguments, emit, opts.result_budget_chars
            )

        # The signal fires when the client cancels or goes away: async tools are cancelled,
        # a sync tool's thread (abandoned by the pipeline) polls it, commands are killed.
        # The read records are kept (on the store, with replicas) before the answer leaves.
        async with sessions.open(session_id, registry.get(params.name)) as mtimes:
            with call_abort_signal(ctx.request) as signal:
                tool_ctx = base_ctx.derive(  # the fast path: the changes are ours, valid
                    session_id=session_id,
                    session_key=session_id,
                    abort_signal=signal,
                    emit=emit,
                    read_mtimes=mtimes,
                    principal=principal,
                )
                if send is None:
                    return await run(tool_ctx)
                async with anyio.create_task_group() as group:
                    group.start_soon(_forward_progress, ctx, receive)
                    try:
                        answer = await run(tool_ctx)
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
    serve_tasks(  # task-augmented tools/call and tasks/* (toolwire.mcp.server.tasks)
        server,
        registry,
        sessions.session_id,
        lambda sid, principal: base_ctx.derive(
            session_id=sid, session_key=sid, read_mtimes=sessions.mtimes(sid), principal=principal
        ),
        lambda done, args: _to_mcp_result(
            done, registry.get(done.name), presenter, args, _drop, opts.result_budget_chars
        ),
    )
    serve_result_resources(server, registry, sessions.session_id)
    _PLUMBING[server] = CallPlumbing(  # toolwire.mcp.server.fast_http calls through the same state
        registry=registry, presenter=presenter, base_ctx=base_ctx, sessions=sessions, as_mcp=as_mcp
    )
    serve_logging(server, log_levels, sessions.session_id)
    notifier.install(server, sessions.session_id)  # tools/list_changed (revision.py)
    for install in opts.server_features:
        install(server)
    return server


_Sessions = SessionReadRecords  # the name toolwire.mcp.server.fast_stdio knows it by


@dataclass(frozen=True, kw_only=True, slots=True)
class CallPlumbing:
    """What a ``tools/call`` or ``tools/list`` answered outside the SDK
    (`toolwire.mcp.server.fast_http`) shares with the server's own handlers, so both paths answer
    alike.

    Attributes:
        registry: The served registry.
        presenter: The presenter the handler uses.
        base_ctx: The context every call derives its own from.
        sessions: The per-session read records (``mtimes``) and the stateless session id.
        as_mcp: A tool as its (cached) MCP definition.
    """

    registry: ToolRegistry
    presenter: Presenter
    base_ctx: ToolContext
    sessions: SessionReadRecords
    as_mcp: Callable[[Tool], mt.Tool]

    async def to_result(
        self, outcome: CallOutcome, arguments: dict[str, Any], emit: ProgressEmitter
    ) -> dict[str, Any]:
        """The wire result of a finished call, exactly as the handler builds it."""
        tool = self.registry.get(outcome.name)
        return await _to_mcp_result(outcome, tool, self.presenter, arguments, emit)


_PLUMBING: weakref.WeakKeyDictionary[Server[Any], CallPlumbing] = weakref.WeakKeyDictionary()


def call_plumbing(server: Server[Any]) -> CallPlumbing:
    """The `CallPlumbing` of a server `create_mcp_server` built.

    Raises:
        ConfigurationError: ``server`` was not built by `create_mcp_server`.
    """
    plumbing = _PLUMBING.get(server)
    if plumbing is None:
        raise ConfigurationError("call_plumbing needs a server built by create_mcp_server")
    return plumbing


async def _to_mcp_result(
    outcome: CallOutcome,
    tool: Tool | None,
    presenter: Presenter,
    args: dict[str, Any],
    emit: ProgressEmitter,
    budget_chars: int | None = None,
) -> dict[str, Any]:
    """The ``tools/call`` result, in its wire shape (``budget_chars``: the per-request budget,
    by default the presenter's ingestion cap)."""
    result = outcome.result
    size = len(result.value) if isinstance(result, Ok) else len(result.error)

    def present() -> str:
        return presenter.present(outcome, tool, args=args, emit=emit).text

    try:
        if size > _PRESENT_IN_THREAD_CHARS:  # keep the event loop free for other requests
            text = await anyio.to_thread.run_sync(present)
        else:
            text = present()
    except Exception as exc:  # fail closed: never hand the client an unpresented result
        logger.exception("presenting the result of %s failed", outcome.name)
        text = f"internal error presenting the result of {outcome.name} ({type(exc).__name__})"
        return _wire(text, is_error=True)
    answer = _wire(text, is_error=not result.ok)
    link = result_link(result)  # a kept result: its handle as a resource too
    if link is not None:
        answer["content"].append(link)
    if isinstance(result, Ok) and result.structured is not None:
        answer["structuredContent"] = result.structured
        budget = budget_chars or presenter.options.ingestion_cap_chars
        as_json = structured_text_block(result.value, result.structured, budget)
        if as_json is not None:  # for clients that read only content (rich_results)
            answer["content"].insert(1, as_json)
        image = _image_block(result.structured)
        if image is not None:
            answer["content"].append(image)
        answer["content"].extend(media_blocks(result.structured))  # audio, resources
    return answer


def _image_block(structured: dict[str, Any]) -> dict[str, Any] | None:
    """An MCP image block for ``structured["image"]`` (``{"mime_type": "image/png", "data":
    <base64>}``, as browser_screenshot answers), or ``None``."""
    image = structured.get("image")
    if not isinstance(image, dict):
        return None
    mime, data = image.get("mime_type"), image.get("data")
    if not (isinstance(mime, str) and mime.startswith("image/") and isinstance(data, str)):
        return None
    return {"type": "image", "data": data, "mimeType": mime}


def _wire(text: str, *, is_error: bool) -> dict[str, Any]:
    # ``resultType`` is required on 2026-07-28 links; older surfaces drop it.
    return {
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
        "resultType": "complete",
    }


def _default_presenter(budget_chars: int) -> Presenter:
    from toolwire.presenting import Presenter, PresenterOptions

    # The presenter keeps the registry's truncation marker (and its true size) intact.
    return Presenter(PresenterOptions(ingestion_cap_chars=budget_chars))


def _progress_emitter(
    send: MemoryObjectSendStream[ProgressEvent] | None,
) -> Callable[[ProgressEvent], None]:
    """A sync emitter, callable from the loop or a worker thread; drops events when full."""
    if send is None:
        return _drop
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


def _drop(event: ProgressEvent) -> None:
    """Progress nobody asked for."""


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
