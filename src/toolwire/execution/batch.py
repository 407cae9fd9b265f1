"""`Batch`: the state one `execute_parallel` call shares across its calls."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

import anyio

from toolwire.capabilities import SEAM_FIELDS
from toolwire.capabilities.seams import Attachment
from toolwire.context import ToolContext
from toolwire.execution.admit import Admission
from toolwire.execution.deadlines import DeadlineQueue
from toolwire.execution.settings import PipelineSettings, ToolLookup

__all__ = [
    "CURRENT_BATCH",
    "TRACKING",
    "Batch",
    "Cancellable",
    "current_batch",
    "exception_message",
    "seam_reset",
    "track_current_batch",
]


class Cancellable(Protocol):
    """A running call the batch's abort signal can interrupt."""

    def cancel(self) -> None:
        """Interrupt the call (from the event loop's thread)."""
        ...


@dataclass(eq=False, slots=True)
class Batch:
    """The state one `execute_parallel` call shares across its calls.

    Attributes:
        settings: The registry's settings.
        lookup: Finds a registered tool by name.
        ctx: The caller's context; each call derives its own from it.
        admission: The allowlist, filters and snapshot of this batch.
        attachments: The turn's attachments.
        per_call_budget: Each call's share of ``ctx.result_budget_chars``.
        limiter: Caps how many calls run at once (``None``: no cap).
        running: The calls in flight that the abort signal must interrupt.
        deadline_queue: The calls' deadlines on asyncio (see `deadlines`).
        seam_reset: What clears the caller's seams from the context of a tool that declared
            none (``None`` when the caller's context carries no seams).
    """

    settings: PipelineSettings
    lookup: ToolLookup
    ctx: ToolContext
    admission: Admission
    attachments: tuple[Attachment, ...]
    per_call_budget: int
    seam_reset: dict[str, None] | None
    limiter: anyio.CapacityLimiter | None = field(init=False)
    running: set[Cancellable] = field(init=False, default_factory=set)
    unsubscribe: Callable[[], None] | None = field(init=False, default=None)
    deadline_queue: DeadlineQueue | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        limit = self.settings.max_concurrency
        self.limiter = anyio.CapacityLimiter(limit) if limit is not None else None

    def deadlines(self, loop: asyncio.AbstractEventLoop) -> DeadlineQueue:
        """The batch's one timer for its calls' deadlines (asyncio), made on first use."""
        queue = self.deadline_queue
        if queue is None:
            queue = self.deadline_queue = DeadlineQueue(loop)
        return queue

    def track(self, call: Cancellable) -> None:
        """Interrupt ``call`` when the abort signal fires (subscribing on first use)."""
        self.running.add(call)
        if self.unsubscribe is None:
            self.unsubscribe = self.ctx.abort_signal.subscribe(self._cancel_all)

    def untrack(self, call: Cancellable) -> None:
        """``call`` has ended."""
        self.running.discard(call)

    def _cancel_all(self) -> None:
        for call in tuple(self.running):
            call.cancel()

    def close(self) -> None:
        """Stop listening to the abort signal and disarm the deadlines."""
        if self.deadline_queue is not None:
            self.deadline_queue.close()
        if self.unsubscribe is not None:
            self.unsubscribe()
            self.unsubscribe = None


def seam_reset(ctx: ToolContext) -> dict[str, None] | None:
    """The changes that clear ``ctx``'s capability seams; ``None`` when it carries none."""
    state = ctx.__dict__
    for name in SEAM_FIELDS:
        if state.get(name) is not None:
            return dict.fromkeys(SEAM_FIELDS)
    return None


def exception_message(exc: BaseException) -> str:
    """The message of ``exc``, looking through single-exception groups."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


CURRENT_BATCH: ContextVar[Batch | None] = ContextVar("toolwire_current_batch", default=None)
"""The batch whose calls are running (set by the pipeline for the length of a batch once
`track_current_batch` was called), so a tool that runs other calls (``run_code``) makes them
under the same admission and approvals."""


class _Tracking:
    """Whether the pipeline sets `CURRENT_BATCH` (off until a tool that reads it is built, so
    a process without one pays an attribute check per batch, not a context-variable set)."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = False


TRACKING = _Tracking()


def track_current_batch() -> None:
    """Make every pipeline of this process keep its running batch in `CURRENT_BATCH`."""
    TRACKING.on = True


def current_batch() -> Batch | None:
    """The batch the running tool was called in, or ``None`` outside a batch (or before
    `track_current_batch`)."""
    return CURRENT_BATCH.get()
