"""Gather the tool calls of one model response into one batch.

Agent frameworks run the calls of a response as separate tasks, one tool invocation each, so
a tool adapter sees them one at a time. The registry's guarantees are per batch (the output
budget is split across the batch, ``max_concurrency`` and ``sequential`` tools hold across it),
so `CallGatherer` collects the calls that arrive under one *key* (the framework's id for the
response: run and step) and runs them with one ``execute_parallel``.

When a batch is complete:

- as soon as ``expected`` calls have arrived, when the adapter can count the response's calls
  (a call that is expected but does not come is waited for ``EXPECTED_PATIENCE`` times
  longer than below, then given up on);
- otherwise once no call has joined for ``settle_ticks`` scheduler passes. The framework starts
  the tasks of a response together, so they reach the adapter within a pass or two; a call that
  comes later (after a ``sequential`` barrier of the framework, or behind a concurrency limit)
  starts a batch of its own instead of waiting.

A batch never waits for a call that does not come. With ``share_of`` (the number of calls in the
response) a partial batch still gives each call its share of the whole response's budget.

Calls that come from threads (a framework's synchronous path: LangGraph's ``invoke`` runs each
call in a worker thread, see `toolwire.integrations._sync`) reach the loop a thread start
apart, far more than a few scheduler passes; their batch also ``linger``s: it waits that many
seconds more after the last call joined, for as long as calls keep joining.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

import anyio
import anyio.lowlevel

from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ToolContext
from toolwire.results import ErrorCode, err

__all__ = [
    "DEFAULT_SETTLE_TICKS",
    "EXPECTED_PATIENCE",
    "BatchRunner",
    "CallGatherer",
    "SubmitOptions",
]

DEFAULT_SETTLE_TICKS = 16
"""Scheduler passes without a new call after which a batch stops waiting for more."""
EXPECTED_PATIENCE = 16
"""How many times longer a batch waits when it knows more calls of its response are coming."""

BatchRunner = Callable[[Sequence[ToolCall], ToolContext], Awaitable[list[CallOutcome]]]
"""Runs one batch: the registry's ``execute_parallel`` with the adapter's arguments."""


@dataclass(eq=False, slots=True)
class _Member:
    call: ToolCall
    done: anyio.Event = field(default_factory=anyio.Event)
    outcome: CallOutcome | None = None
    error: Exception | None = None

    def deliver(self, outcome: CallOutcome) -> None:
        self.outcome = outcome
        self.done.set()

    def fail(self, error: Exception) -> None:
        self.error = error
        self.done.set()

    def result(self) -> CallOutcome:
        if self.error is not None:
            raise self.error
        assert self.outcome is not None  # set together with done
        return self.outcome


@dataclass(eq=False, slots=True)
class _Batch:
    ctx: ToolContext
    expected: int | None
    share_of: int | None
    linger: float = 0.0
    members: list[_Member] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return self.expected is not None and len(self.members) >= self.expected


class SubmitOptions(TypedDict, total=False):
    """`CallGatherer.submit`'s keyword options, for the adapters that pass them on."""

    expected: int | None
    share_of: int | None
    linger: float


class CallGatherer:
    """Collects calls arriving under one key into one batch and runs it once.

    Args:
        run: Runs a batch (calls and the context for the batch) and returns one outcome per
            call, in order.
        settle_ticks: Scheduler passes without a new call after which an incomplete batch
            runs with the calls it has.
    """

    __slots__ = ("_open", "_run", "_settle_ticks")

    def __init__(self, run: BatchRunner, *, settle_ticks: int = DEFAULT_SETTLE_TICKS) -> None:
        if settle_ticks < 0:
            raise ValueError(f"settle_ticks must be >= 0, got {settle_ticks}")
        self._run = run
        self._settle_ticks = settle_ticks
        self._open: dict[Hashable, _Batch] = {}

    async def submit(
        self,
        key: Hashable,
        call: ToolCall,
        ctx: ToolContext,
        *,
        expected: int | None = None,
        share_of: int | None = None,
        linger: float = 0.0,
    ) -> CallOutcome:
        """Run ``call`` in the batch of ``key`` and return its outcome.

        The first call of a batch waits for the others (see the module docstring) and runs the
        batch under its ``ctx``; the others wait for their outcome.

        Args:
            key: The response the call belongs to; ``None`` runs the call alone.
            call: The call.
            ctx: The context for the batch (the first call's is used).
            expected: How many calls the response has for this adapter, when known.
            share_of: How many calls the response's budget is split across (``expected`` by
                default); a partial batch gets ``len(batch) / share_of`` of the budget.
            linger: Seconds a batch this call starts waits after the last call joined (calls
                arriving from threads; see the module docstring).
        """
        if key is None:
            return (await self._run([call], ctx))[0]
        batch = self._open.get(key)
        if batch is not None:
            member = _Member(call)
            batch.members.append(member)
            await member.done.wait()
            return member.result()
        batch = _Batch(ctx=ctx, expected=expected, share_of=share_of or expected, linger=linger)
        leader = _Member(call)
        batch.members.append(leader)
        self._open[key] = batch
        try:
            try:
                await self._settle(batch)
            finally:
                if self._open.get(key) is batch:
                    del self._open[key]
            await self._execute(batch)
        except Exception as exc:
            _settle_members(batch, exc)
            raise
        except BaseException:  # cancelled: the others get an answer, not a hang
            _settle_members(batch, None)
            raise
        return leader.result()

    async def _settle(self, batch: _Batch) -> None:
        seen = len(batch.members)
        idle = 0
        limit = self._settle_ticks * (EXPECTED_PATIENCE if batch.expected is not None else 1)
        while not batch.full and idle < limit:
            await anyio.lowlevel.checkpoint()
            if len(batch.members) != seen:
                seen, idle = len(batch.members), 0
            else:
                idle += 1
        while batch.linger > 0 and not batch.full:
            await anyio.sleep(batch.linger)
            if len(batch.members) == seen:
                break
            seen = len(batch.members)

    async def _execute(self, batch: _Batch) -> None:
        members = batch.members
        ctx = batch.ctx
        if batch.share_of is not None and batch.share_of > len(members):
            budget = ctx.result_budget_chars * len(members) // batch.share_of
            ctx = ctx.derive(result_budget_chars=max(budget, len(members)))
        outcomes = await self._run([m.call for m in members], ctx)
        for member, outcome in zip(members, outcomes, strict=True):
            member.deliver(outcome)


def _settle_members(batch: _Batch, error: Exception | None) -> None:
    """Answer every waiting member of a batch that failed (``error``) or was cancelled."""
    for member in batch.members[1:]:
        if member.done.is_set():
            continue
        if error is not None:
            member.fail(error)
        else:
            member.deliver(_aborted(member.call))


def _aborted(call: ToolCall) -> CallOutcome:
    return CallOutcome(
        tool_call_id=call.id,
        name=call.name,
        result=err("aborted: the batch this call ran in was cancelled", ErrorCode.EXECUTION_FAILED),
        duration_ms=0.0,
    )
