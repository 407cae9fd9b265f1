"""The `ToolContext` one call's tool sees: its budget, its id, progress wiring, its seams."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolwire.context import ProgressEvent, ToolContext
from toolwire.execution.batch import Batch, exception_message
from toolwire.results import Err, ErrorCode

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["call_context"]

logger = logging.getLogger("toolwire.execution")


async def call_context(
    batch: Batch, tool_name: str, capabilities: Any, call_id: str, budget: int
) -> ToolContext | Err:
    """The context this call's tool sees: its budget, its id, progress wiring, its seams."""
    ctx = batch.ctx
    registry = batch.registry
    changes: dict[str, Any] = {"result_budget_chars": budget, "tool_call_id": call_id}
    if registry.hooks.has_observers:
        changes["emit"] = _progress_emitter(registry, ctx.emit, call_id)
    if capabilities.is_empty and batch.seam_reset is not None:
        changes.update(batch.seam_reset)  # no declaration, no seams: not even the caller's
    call_ctx = ctx.derive(**changes)
    if capabilities.is_empty or registry.backends is None:
        return call_ctx
    from toolwire.backends.resolver import CapabilityScope, resolve_capabilities

    try:
        resolved = resolve_capabilities(
            tool_name,
            capabilities,
            CapabilityScope.from_context(ctx, batch.attachments),
            registry.backends,
        )
        return resolved.apply(call_ctx)
    except Exception as exc:  # a failing resolver denies
        return Err(
            f"Tool {tool_name}: its capabilities could not be resolved ({exception_message(exc)})",
            ErrorCode.NOT_AVAILABLE,
            reason="capability_resolution_failed",
        )


def _progress_emitter(
    registry: ToolRegistry, inner: Callable[[ProgressEvent], None], call_id: str
) -> Callable[[ProgressEvent], None]:
    def emit(event: ProgressEvent) -> None:
        try:
            inner(event)
        except Exception:
            logger.exception("toolwire: the context's emit failed")
        registry.hooks.emit_progress_nowait(event, call_id)

    return emit
