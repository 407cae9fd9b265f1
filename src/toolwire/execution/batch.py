"""The state one `execute_parallel` call shares across its calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio

from toolwire.context import ToolContext
from toolwire.execution.gates import FilterOptions
from toolwire.seams import Attachment

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["SEAMS", "Batch", "exception_message"]

SEAMS = (
    "kv_store",
    "secrets_resolver",
    "scoped_fetch",
    "scoped_fs",
    "scoped_process",
    "attachments",
)
"""The capability seams of a `ToolContext`; a tool sees only those it declared."""


class Batch:
    """The state one `execute_parallel` call shares across its calls."""

    __slots__ = (
        "allowed",
        "attachments",
        "ctx",
        "filters",
        "limiter",
        "per_call_budget",
        "registry",
        "running",
        "seam_reset",
        "unsubscribe",
    )

    def __init__(
        self,
        registry: ToolRegistry,
        ctx: ToolContext,
        allowed: frozenset[str] | None,
        filters: FilterOptions | None,
        attachments: tuple[Attachment, ...],
        per_call_budget: int,
        limiter: anyio.CapacityLimiter | None,
    ) -> None:
        self.registry = registry
        self.ctx = ctx
        self.allowed = allowed
        self.filters = filters
        self.attachments = attachments
        self.per_call_budget = per_call_budget
        self.limiter = limiter
        self.running: set[anyio.CancelScope] = set()
        self.unsubscribe: Callable[[], None] | None = None
        has_seams = (
            ctx.kv_store is not None
            or ctx.secrets_resolver is not None
            or ctx.scoped_fetch is not None
            or ctx.scoped_fs is not None
            or ctx.scoped_process is not None
            or ctx.attachments is not None
        )
        self.seam_reset: dict[str, None] | None = dict.fromkeys(SEAMS) if has_seams else None
        """What clears the caller's seams from the context of a tool that declared none."""

    def track(self, scope: anyio.CancelScope) -> None:
        """Cancel ``scope`` when the abort signal fires (subscribing on first use)."""
        self.running.add(scope)
        if self.unsubscribe is None:
            self.unsubscribe = self.ctx.abort_signal.subscribe(self._cancel_all)

    def _cancel_all(self) -> None:
        for scope in tuple(self.running):
            scope.cancel()

    def close(self) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
            self.unsubscribe = None


def exception_message(exc: BaseException) -> str:
    """The message of ``exc``, looking through single-exception groups."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__
