"""Stage 7, resolve: the `ToolContext` one call's tool sees — its budget, its id, progress
wiring and only the capability seams it declared, scoped to the call.

A tool that declared nothing gets no seams, not even ones the caller's context carried. A
resolver that fails denies the call (``not_available``).
"""

from __future__ import annotations

import logging
from typing import Any

from toolwire.context import ProgressEmitter, ProgressEvent, ToolContext
from toolwire.execution.batch import Batch, exception_message
from toolwire.execution.gates import RegisteredTool
from toolwire.execution.hooks import HookRegistry
from toolwire.results import Err, ErrorCode

__all__ = ["call_context", "plain_call_context"]

logger = logging.getLogger("toolwire.execution")


def plain_call_context(ctx: ToolContext, call_id: str, budget: int) -> ToolContext:
    """The context of a call whose tool declared nothing, with nobody observing and no seams
    in the caller's context to clear: the caller's, with the call's budget and id."""
    return ctx.derive(result_budget_chars=budget, tool_call_id=call_id)


def call_context(
    batch: Batch, entry: RegisteredTool, call_id: str, budget: int
) -> ToolContext | Err:
    """The context ``entry``'s tool runs with for the call ``call_id``, or the refusal."""
    ctx = batch.ctx
    settings = batch.settings
    declares = entry.declares_capabilities
    if not declares and batch.seam_reset is None and not settings.hooks.has_observers:
        return plain_call_context(ctx, call_id, budget)  # the common case
    tool = entry.tool
    capabilities = tool.capabilities
    changes: dict[str, Any] = {"result_budget_chars": budget, "tool_call_id": call_id}
    if settings.hooks.has_observers:
        changes["emit"] = _progress_emitter(settings.hooks, ctx.emit, call_id)
    if not declares:
        if batch.seam_reset is not None:
            changes.update(batch.seam_reset)  # no declaration, no seams: not even the caller's
        return ctx.derive(**changes)
    call_ctx = ctx.derive(**changes)
    backends = settings.backends
    if backends is None:  # admit refused this already; kept as a second lock
        return Err(f"Tool {tool.name}: no capability backends", ErrorCode.NOT_AVAILABLE)
    from toolwire.capabilities.resolver import CapabilityScope, resolve_capabilities

    try:
        resolved = resolve_capabilities(
            tool.name,
            capabilities,
            CapabilityScope.from_context(ctx, batch.attachments),
            backends,
        )
        return resolved.apply(call_ctx)
    except Exception as exc:  # a failing resolver denies
        return Err(
            f"Tool {tool.name}: its capabilities could not be resolved ({exception_message(exc)})",
            ErrorCode.NOT_AVAILABLE,
            reason="capability_resolution_failed",
        )


def _progress_emitter(hooks: HookRegistry, inner: ProgressEmitter, call_id: str) -> ProgressEmitter:
    def emit(event: ProgressEvent) -> None:
        try:
            inner(event)
        except Exception:
            logger.exception("toolwire: the context's emit failed")
        hooks.emit_progress_nowait(event, call_id)

    return emit
