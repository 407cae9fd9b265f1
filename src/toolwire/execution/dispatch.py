"""Dispatch under control: quotas, tasks and the effect journal around resolve → run → finish.

The pipeline takes this way only for a call something applies to (the registry has quotas,
the tool is ``long_running`` or has ``side_effects``, the context sets ``hand_off_s``, or an
approval token was used for the call);
every other call pays four attribute checks and goes the usual way. In order:

1. **quotas** (`toolwire.execution.quotas`): reserve the call's place in every quota covering
   the tool, or answer the refusal;
2. **hand-off** (`toolwire.execution.tasks`): when a hand-off time applies, the rest runs in
   the background and a call still running then answers pending with a task id;
3. **resolve, run** under the **effect journal** (`toolwire.execution.effects`) for a tool with
   side effects, then **finish** (reducer, trim, cache store, after-hooks);
4. the quota reservation is released (concurrency) and charged (cost, wall time) when the call
   ends: after the task, for a call that became one;
5. an approval token the call used up is given back when the call is refused by a quota or
   its capabilities before its tool starts (`toolwire.execution.approvals.SpentApproval`).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import anyio

from toolwire.context import AbortSignal
from toolwire.execution.approvals import SpentApproval
from toolwire.execution.batch import Batch
from toolwire.execution.cache import CacheKey
from toolwire.execution.effects import journaled
from toolwire.execution.finish import Finishing, finish
from toolwire.execution.gates import RegisteredTool
from toolwire.execution.quotas import Reservation, StoreFactory, reserve
from toolwire.execution.resolve import call_context
from toolwire.execution.run import observed_attempt
from toolwire.execution.settings import PipelineSettings
from toolwire.execution.tasks import DEFAULT_HAND_OFF_S
from toolwire.results import Err, ToolResult

__all__ = ["dispatch", "store_factory"]


def store_factory(settings: PipelineSettings) -> StoreFactory | None:
    """The registry's ``kv_store_factory``, when it has key-value backends."""
    backends = settings.backends
    return backends.kv_store_factory if backends is not None else None


async def dispatch(
    batch: Batch,
    entry: RegisteredTool,
    call_id: str,
    args: dict[str, Any],
    budget: int,
    cache_key: CacheKey | None,
    approval: SpentApproval | None = None,
) -> ToolResult:
    """Reserve quotas, then run the rest of the call, handed off to a task when it is late.
    ``approval`` (the token that approved the call) is given back if the call is refused here
    or when its capabilities are resolved, before its tool starts."""
    settings = batch.settings
    tool = entry.tool
    ctx = batch.ctx
    reservation = None
    if settings.quotas is not None:
        reserved = await reserve(settings.quotas, store_factory(settings), tool, ctx)
        if isinstance(reserved, Err):
            if approval is not None:
                await approval.give_back()
            return reserved
        reservation = reserved
    call = _Call(batch, entry, call_id, args, budget, cache_key, approval)
    work = functools.partial(_rest, call, reservation)
    hand_off = ctx.hand_off_s
    tasks = settings.tasks
    if hand_off is None and tool.long_running:
        hand_off = tasks.hand_off_s if tasks is not None else DEFAULT_HAND_OFF_S
    if hand_off is None or tasks is None:
        return await work(None)
    return await tasks.hand_off(
        work,
        hand_off,
        ctx.abort_signal,
        tool_name=tool.name,
        call_id=call_id,
        session_id=ctx.session_id,
    )


@dataclass(frozen=True, slots=True)
class _Call:
    """One call on its way through `dispatch`, as its caller gave it."""

    batch: Batch
    entry: RegisteredTool
    call_id: str
    args: dict[str, Any]
    budget: int
    cache_key: CacheKey | None
    approval: SpentApproval | None


async def _rest(
    call: _Call, reservation: Reservation | None, signal: AbortSignal | None
) -> ToolResult:
    """resolve → run (journaled for side effects) → finish; then the quotas are settled. With
    ``signal`` (a task) the call runs in a batch of its own that follows that signal. While it
    runs, the leases of its concurrency slots are renewed."""
    batch = call.batch
    own = batch if signal is None else _detached(batch, signal)
    result: ToolResult | None = None
    try:
        if reservation is None or not reservation.holds_slots:
            result = await _run(call, own)
            return result
        async with anyio.create_task_group() as leases:
            leases.start_soon(reservation.keep_leases)
            try:
                ran = await _run(call, own)
            finally:
                leases.cancel_scope.cancel()
        result = ran
        return ran
    finally:
        if own is not batch:
            own.close()
        if reservation is not None:
            await reservation.release(result)


async def _run(call: _Call, batch: Batch) -> ToolResult:
    """resolve → run (journaled for side effects) → finish, in ``batch``."""
    settings = batch.settings
    tool, args = call.entry.tool, call.args
    call_ctx = call_context(batch, call.entry, call.call_id, call.budget)
    if isinstance(call_ctx, Err):
        if call.approval is not None:
            await call.approval.give_back()
        return call_ctx
    attempt = functools.partial(observed_attempt, batch, tool, args, call_ctx)
    started = time.perf_counter()
    if tool.side_effects:
        factory = store_factory(settings)
        raw = await journaled(settings.effects, factory, tool, args, call_ctx, attempt)
    else:
        raw = (await attempt())[0]
    duration_ms = (time.perf_counter() - started) * 1000.0
    done = Finishing(tool, call.call_id, args, call_ctx, call.budget, duration_ms, call.cache_key)
    return await finish(settings, done, raw)


def _detached(batch: Batch, signal: AbortSignal) -> Batch:
    """A batch of the call's own, following ``signal``: a task outlives its caller's batch."""
    return Batch(
        batch.settings,
        batch.lookup,
        batch.ctx.derive(abort_signal=signal),
        batch.admission,
        batch.attachments,
        batch.per_call_budget,
        batch.seam_reset,
    )
