"""One description of ``tools/call`` that the three server paths share.

A served registry answers ``tools/call`` on three paths: the SDK server's handler
(`toolwire.mcp.server`), the HTTP fast path (`toolwire.mcp.server.fast_http`) and the stdio fast
path (`toolwire.mcp.server.fast_stdio`). Each keeps only its transport's glue (parsing the request,
finding its principal and session, its abort signal, serialising the answer for the request's
revision); what a call *is* lives here, once, in `ToolCalls`:

- **which calls a fast path may answer** (`ToolCalls.fast_path_tool`): a known tool that
  needs no approval round trip, cannot become a task and is not ``tool_search`` or a deferred
  tool (those need the session's found tools); everything else is the SDK path's;
- **the call's context** (`ToolCalls.call`): the session's read records, held until the
  answer is built (kept on the store, with replicas, before it leaves), and the context every
  call derives from the server's (session, principal, abort signal, progress emitter);
- **running it**: `toolwire.registry.ToolRegistry.execute`, or what the SDK path runs instead
  (deferred-tool gate, client peer, approval questions: `toolwire.mcp.server`), which may
  answer a wire dict of its own (``input_required``);
- **the result** (`ToolCalls.result`): the outcome through the presenter with the per-request
  budget, as ``content`` (text, then the structured JSON for clients that read only content,
  the kept result's resource link, an image, audio and resources), ``structuredContent`` and
  ``isError``; a presenter that fails answers an ``isError`` result, never the raw value.

Model errors (unknown arguments, a failing tool, a deferred tool not found) are ``isError``
results; JSON-RPC errors are the transports' (a malformed request) and the grant check's.
The standard library and toolwire only: the stdio fast path imports this before the SDK.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from toolwire.context import ProgressEmitter, ProgressEvent, ToolContext
from toolwire.mcp.server.media import media_blocks
from toolwire.mcp.server.result_resources import result_link
from toolwire.mcp.server.rich_results import structured_text_block
from toolwire.principals import LOCAL, Principal
from toolwire.replicas._session_read_records import SessionReadRecords
from toolwire.results import Ok
from toolwire.tool_search._deferral import TOOL_SEARCH_NAME

if TYPE_CHECKING:
    from toolwire.calls import CallOutcome
    from toolwire.context import AbortSignal
    from toolwire.mcp.server._options import ServeOptions
    from toolwire.presenting import Presenter
    from toolwire.registry import ToolRegistry
    from toolwire.tools import Tool

__all__ = ["CallRequest", "RunCall", "ToolCalls", "default_presenter", "drop_progress"]

logger = logging.getLogger("toolwire.mcp.server.tool_call")

PRESENT_IN_THREAD_CHARS = 200_000
"""Results larger than this are presented in a worker thread (the loop stays free)."""

RunCall = Callable[[ToolContext], Awaitable["CallOutcome | dict[str, Any]"]]
"""Runs a call in its context: an outcome, or a wire dict to answer as it is."""


def drop_progress(event: ProgressEvent) -> None:
    """Progress nobody asked for."""


def default_presenter(budget_chars: int) -> Presenter:
    """The presenter a server uses when its options name none (it keeps the registry's
    truncation marker, and its true size, intact)."""
    from toolwire.presenting import Presenter, PresenterOptions

    return Presenter(PresenterOptions(ingestion_cap_chars=budget_chars))


@dataclass(frozen=True, slots=True)
class CallRequest:
    """One ``tools/call`` as a path parsed it.

    Attributes:
        name: The tool called.
        arguments: Its arguments (``{}`` when the request had none).
        call_id: The call's id in the registry (the JSON-RPC id as text).
        session_id: toolwire's session of the request (`SessionReadRecords`).
        principal: Who calls (the credential's, or `toolwire.principals.LOCAL`).
    """

    name: str
    arguments: dict[str, Any]
    call_id: str
    session_id: str
    principal: Principal = LOCAL


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCalls:
    """``tools/call`` of one served registry, for every path (see the module doc).

    Attributes:
        registry: The served registry.
        presenter: What turns an outcome into the text the client reads.
        base_ctx: The context every call derives its own from.
        sessions: The per-session read records and the stateless session ids.
        budget_chars: The per-request result budget.
    """

    registry: ToolRegistry
    presenter: Presenter
    base_ctx: ToolContext
    sessions: SessionReadRecords
    budget_chars: int

    @classmethod
    def serving(
        cls, registry: ToolRegistry, options: ServeOptions, sessions: SessionReadRecords
    ) -> ToolCalls:
        """The calls of ``registry`` served with ``options`` (its presenter or the default
        one, its working directory and budget), keeping read records in ``sessions``."""
        budget = options.result_budget_chars
        return cls(
            registry=registry,
            presenter=options.presenter or default_presenter(budget),
            base_ctx=ToolContext(
                session_id=sessions.process_id,
                platform="mcp",
                working_dir=options.working_dir or os.getcwd(),
                result_budget_chars=budget,
            ),
            sessions=sessions,
            budget_chars=budget,
        )

    def fast_path_tool(self, name: str) -> Tool | None:
        """The tool a fast path may run for a call of ``name``, or ``None`` when the SDK path
        must answer it: an unknown tool, one that may need the user's approval or become a
        task, ``tool_search`` and the deferred tools (checked against the session's found
        tools, and a handshake-era client told its list changed)."""
        tool = self.registry.get(name)
        if tool is None or tool.requires_approval is not False or tool.long_running:
            return None
        if tool.name == TOOL_SEARCH_NAME or tool.name in self.registry.deferred_names:
            return None
        return tool

    def context(self, session_id: str, principal: Principal = LOCAL, **changes: Any) -> ToolContext:
        """The context of a call in ``session_id`` for ``principal`` (``changes``: its abort
        signal, emitter, read records)."""
        return self.base_ctx.derive(
            session_id=session_id, session_key=session_id, principal=principal, **changes
        )

    async def call(
        self,
        request: CallRequest,
        signal: AbortSignal,
        *,
        emit: ProgressEmitter = drop_progress,
        run: RunCall | None = None,
    ) -> dict[str, Any]:
        """Run ``request`` and answer its wire result (``run``: how, by default the
        registry's `execute`; a dict it returns is answered as it is)."""
        tool = self.registry.get(request.name)
        async with self.sessions.open(request.session_id, tool) as mtimes:  # kept first
            ctx = self.context(
                request.session_id,
                request.principal,
                abort_signal=signal,
                emit=emit,
                read_mtimes=mtimes,
            )
            if run is None:
                outcome: CallOutcome | dict[str, Any] = await self.registry.execute(
                    request.name, request.arguments, ctx, call_id=request.call_id
                )
            else:
                outcome = await run(ctx)
            if isinstance(outcome, dict):
                return outcome
            return await self.result(outcome, request.arguments, emit)

    async def result(
        self, outcome: CallOutcome, arguments: dict[str, Any], emit: ProgressEmitter
    ) -> dict[str, Any]:
        """The ``tools/call`` result of a finished call, in its wire shape."""
        result = outcome.result
        size = len(result.value) if isinstance(result, Ok) else len(result.error)
        tool = self.registry.get(outcome.name)

        def present() -> str:
            return self.presenter.present(outcome, tool, args=arguments, emit=emit).text

        try:
            if size > PRESENT_IN_THREAD_CHARS:  # keep the event loop free for other requests
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
            as_json = structured_text_block(result.value, result.structured, self.budget_chars)
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
    # ``resultType`` is required on 2026-07-28 results; the paths drop it on older revisions.
    return {
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
        "resultType": "complete",
    }
