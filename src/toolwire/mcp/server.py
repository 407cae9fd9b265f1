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
  calls the same way (`toolwire.mcp.hangups`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
from anyio.lowlevel import current_token

from toolwire.calls import CallOutcome
from toolwire.context import (
    DEFAULT_RESULT_BUDGET_CHARS,
    ProgressEmitter,
    ProgressEvent,
    ToolContext,
)
from toolwire.errors import ConfigurationError
from toolwire.mcp.cors import check_cors_origins
from toolwire.mcp.hangups import call_abort_signal
from toolwire.mcp.identity import ServerIdentity
from toolwire.mcp.listing import DEFAULT_TOOLS_LIST_TTL_S
from toolwire.mcp.media import media_blocks
from toolwire.mcp.replica_records import SessionReadRecords
from toolwire.mcp.result_resources import result_link
from toolwire.mcp.rich_results import structured_text_block
from toolwire.results import Ok
from toolwire.seams import ReadRecord
from toolwire.tools import Tool
from toolwire.version import __version__

if TYPE_CHECKING:  # the SDK loads when a server is built (the lean stdio loop needs none)
    import mcp_types as mt
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.server import Server
    from mcp.server.context import ServerRequestContext

    from toolwire.mcp.auth.server_auth import ServerAuth
    from toolwire.presenting import Presenter
    from toolwire.registry import ToolRegistry
    from toolwire.replicas.state import ReplicaState

__all__ = [
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_SESSION_IDLE_TIMEOUT_S",
    "CallPlumbing",
    "ServeOptions",
    "call_plumbing",
    "create_mcp_server",
]

logger = logging.getLogger("toolwire.mcp.server")

DEFAULT_HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8765
DEFAULT_SESSION_IDLE_TIMEOUT_S = 300.0
"""How long an HTTP session may sit idle (no request in flight) before it is closed."""
DEFAULT_MAX_SESSIONS = 1000
"""How many HTTP sessions may be open at once (each costs tens of kilobytes)."""
_PROGRESS_BUFFER = 64
_PRESENT_IN_THREAD_CHARS = 200_000


@dataclass(frozen=True, kw_only=True, slots=True)
class ServeOptions:
    """How a registry is served.

    Attributes:
        name: The server name clients see.
        result_budget_chars: The per-request budget: the registry trims a success to it (plus
            the ``[truncated — N chars total]`` marker) and the presenter caps any text,
            errors included, at it (plus room for that marker).
        working_dir: The tools' working directory (the process's by default).
        presenter: Turns an outcome into the text the client reads; by default a
            `toolwire.presenting.Presenter` whose ingestion cap is ``result_budget_chars``.
        instructions: Optional server instructions shown to clients.
        session_idle_timeout_s: Streamable HTTP: a session with no request in flight (and no
            open GET stream) for this long is closed; its id then answers 404 and the client
            starts a new session.
        max_sessions: Streamable HTTP: how many sessions may be open at once. A new session
            at the cap closes the one idle the longest; only when every session is busy is
            the newcomer refused (503).
        auth: Streamable HTTP: who may connect, and which tools each credential sees and
            calls (`toolwire.mcp.auth.server_auth.ServerAuth`); ``None``: nobody is asked,
            which `serve_http` allows only on a loopback address.
        insecure_no_auth: Let `serve_http` bind a non-loopback address without ``auth``
            (behind a proxy that authenticates); it warns loudly.
        server_features: Called with the low-level server once toolwire's handlers are on
            it, to add more (``toolwire.mcp.conformance`` adds its fixture's resources).
        identity: The server's title, description, website and icons (``serverInfo``).
        tools_list_ttl_s: How long a client may cache ``tools/list`` and ``server/discover``
            (2026-07-28 ``ttlMs``; ``cacheScope`` is ``private`` when ``auth`` is set).
        replicas: This server as one of several replicas on a shared store
            (`toolwire.replicas.ReplicaState`): handshake-era sessions and read records on
            the store, the stateless session shared (docs/scaling.md); ``None``: one server.
        cors_origins: Streamable HTTP: the origins of web pages that may call the server from
            a browser (``https://app.example.com``): their CORS preflights are answered before
            authentication and the answers are readable by them (`toolwire.mcp.cors`); ``()``:
            no browser page may.
    """

    name: str = "toolwire"
    result_budget_chars: int = DEFAULT_RESULT_BUDGET_CHARS
    working_dir: str | None = None
    presenter: Presenter | None = None
    instructions: str | None = None
    session_idle_timeout_s: float = DEFAULT_SESSION_IDLE_TIMEOUT_S
    max_sessions: int = DEFAULT_MAX_SESSIONS
    auth: ServerAuth | None = None
    insecure_no_auth: bool = False
    server_features: tuple[Callable[[Server[Any]], None], ...] = ()
    identity: ServerIdentity = field(default_factory=ServerIdentity)
    tools_list_ttl_s: float = DEFAULT_TOOLS_LIST_TTL_S
    replicas: ReplicaState | None = None
    cors_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_cors_origins(self.cors_origins)
        if self.result_budget_chars < 1:
            raise ConfigurationError("ServeOptions.result_budget_chars must be >= 1")
        if not 0 < self.session_idle_timeout_s < math.inf:
            raise ConfigurationError("ServeOptions.session_idle_timeout_s must be > 0 seconds")
        if self.max_sessions < 1:
            raise ConfigurationError("ServeOptions.max_sessions must be >= 1")


def create_mcp_server(registry: ToolRegistry, options: ServeOptions | None = None) -> Server[Any]:
    """A low-level MCP `Server` whose tools are ``registry``'s.

    Args:
        registry: The tools to serve (its definitions are re-read on every ``tools/list``).
        options: Name, budget, presenter.
    """
    import mcp_types as mt

    from toolwire.mcp.approval_requests import call_with_approval
    from toolwire.mcp.auth.access import caller_allows
    from toolwire.mcp.peer import LogLevels, bind_peer, serve_logging
    from toolwire.mcp.result_resources import serve_result_resources
    from toolwire.mcp.revision import (
        RevisionServer,
        ToolListNotifier,
        listing_cache_hints,
        server_identity_kwargs,
    )
    from toolwire.mcp.rich_results import explicit_hints
    from toolwire.mcp.tasks import serve_tasks

    opts = options or ServeOptions()
    presenter = opts.presenter or _default_presenter(opts.result_budget_chars)
    sessions = SessionReadRecords(opts.replicas)  # STALE_WRITE records (replica_records.py)
    log_levels = LogLevels()  # what each session chose with logging/setLevel
    notifier = ToolListNotifier(registry)  # tools/list_changed (toolwire.mcp.revision)
    listed: dict[str, tuple[Tool, mt.Tool]] = {}
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
        tools = [registry.get(d["name"]) for d in registry.definitions()]
        return mt.ListToolsResult(tools=[as_mcp(t) for t in tools if t is not None])

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: mt.CallToolRequestParams
    ) -> dict[str, Any]:
        session_id = sessions.session_id(ctx)
        arguments = params.arguments or {}
        wants_progress = bool(ctx.meta and ctx.meta.get("progress_token") is not None)
        send: MemoryObjectSendStream[ProgressEvent] | None = None
        if wants_progress:
            send, receive = anyio.create_memory_object_stream[ProgressEvent](_PROGRESS_BUFFER)
        emit = _progress_emitter(send)
        call_id = str(ctx.request_id) if ctx.request_id is not None else "mcp"

        async def run(tool_ctx: ToolContext) -> dict[str, Any]:
            with bind_peer(ctx, session_id, log_levels, params.input_responses) as peer:
                outcome = await call_with_approval(registry, ctx, params, tool_ctx, call_id)
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
    serve_tasks(  # task-augmented tools/call and tasks/* (toolwire.mcp.tasks)
        server,
        registry,
        sessions.session_id,
        lambda sid: base_ctx.derive(
            session_id=sid, session_key=sid, read_mtimes=sessions.mtimes(sid)
        ),
        lambda done, args: _to_mcp_result(
            done, registry.get(done.name), presenter, args, _drop, opts.result_budget_chars
        ),
    )
    serve_result_resources(server, registry, sessions.session_id)
    _PLUMBING[server] = CallPlumbing(  # toolwire.mcp.lean calls through the same state
        registry=registry, presenter=presenter, base_ctx=base_ctx, sessions=sessions, as_mcp=as_mcp
    )
    serve_logging(server, log_levels, sessions.session_id)
    notifier.install(server, sessions.session_id)  # tools/list_changed (revision.py)
    for install in opts.server_features:
        install(server)
    return server


_Sessions = SessionReadRecords  # the name toolwire.mcp.stdio_lean knows it by


@dataclass(frozen=True, kw_only=True, slots=True)
class CallPlumbing:
    """What a ``tools/call`` or ``tools/list`` answered outside the SDK (`toolwire.mcp.lean`)
    shares with the server's own handlers, so both paths answer alike.

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

    def session_mtimes(self, session_header: str | None) -> tuple[str, dict[str, ReadRecord]]:
        """The session id the handler would use for this ``Mcp-Session-Id`` (none: the
        process's), and its read records in this process."""
        sid = self.sessions.session_of_header(session_header)
        return sid, self.sessions.mtimes(sid)

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
