"""`AmplifierTool`: one toolwire tool as an amplifier tool, and the events around its calls.

The calls the orchestrator starts together join one batch *before* anything is awaited, so
hooks that take a while (amplifier's hook registry is asynchronous) cannot spread the calls of
one response over several batches. The batch then emits ``tool:pre`` for each call, runs the
calls no hook refused in one ``execute_parallel`` (with their share of the budget of the whole
response), and each call emits ``tool:post`` and, on failure, ``tool:error``.

What a ``tool:pre`` answer does, failing closed (`toolwire.integrations._amplifier_pre`):
``deny`` refuses; ``ask_user`` asks the coordinator's approval system and refuses unless the
user allows; a changed ``tool_input`` (``modify``: amplifier's registry chains the data and
answers ``continue`` with it) is what the call runs with, validated again by the pipeline.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import anyio

from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ToolContext
from toolwire.integrations._amplifier_pre import verdict
from toolwire.integrations._binding import BoundOutcome, BoundTool, ToolBinding
from toolwire.integrations._extras import missing_extra
from toolwire.integrations._gathering import CallGatherer
from toolwire.integrations.amplifier_results import to_amplifier
from toolwire.results import Err, ErrorCode, err

try:
    from amplifier_core.models import ToolResult as AmplifierToolResult  # type: ignore[import-untyped]
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    raise missing_extra("toolwire.integrations.amplifier", "amplifier", exc) from exc

__all__ = ["AmplifierTool", "MountState"]

logger = logging.getLogger("toolwire.integrations.amplifier")

DENIED = "tool_pre_denied"
"""``Err.reason`` of a call a ``tool:pre`` hook refused (it never ran: no post events)."""
CALL_ID_KEY = "_tool_call_id"
"""The input key carrying the orchestrator's call id (amplifier-core's behaviour tests pass it);
it becomes the call's ``tool_call_id`` and is not an argument of the tool."""


@dataclass(kw_only=True, slots=True)
class MountState:
    """What the tools of one mount share: the coordinator, the binding, the batching."""

    coordinator: Any
    binding: ToolBinding
    base: ToolContext
    emit_events: bool
    gatherer: CallGatherer = field(init=False)

    def __post_init__(self) -> None:
        self.gatherer = CallGatherer(self.run_batch)

    async def emit(self, event: str, data: dict[str, Any]) -> Any:
        """Emit to the coordinator's hooks (nothing when events are off or there are none)."""
        hooks = getattr(self.coordinator, "hooks", None)
        if not self.emit_events or hooks is None:
            return None
        return await hooks.emit(event, data)

    async def run_batch(self, calls: Sequence[ToolCall], ctx: ToolContext) -> list[CallOutcome]:
        """``tool:pre`` for each call, then the calls no hook denied, in one batch."""
        refusals: dict[int, CallOutcome] = {}

        cleared: dict[int, ToolCall] = {}

        async def check(index: int, call: ToolCall) -> None:
            verdict = await self.pre(call)
            if isinstance(verdict, ToolCall):
                cleared[index] = verdict
                return
            result = err(verdict, ErrorCode.NOT_AVAILABLE, reason=DENIED)
            refusals[index] = CallOutcome(
                tool_call_id=call.id, name=call.name, result=result, duration_ms=0.0
            )

        async with anyio.create_task_group() as group:
            for index, call in enumerate(calls):
                group.start_soon(check, index, call)
        allowed = [cleared[index] for index in range(len(calls)) if index not in refusals]
        ran: list[CallOutcome] = []
        if allowed:
            if len(allowed) < len(calls):  # the denied calls' shares are not handed out
                budget = ctx.result_budget_chars * len(allowed) // len(calls)
                ctx = ctx.derive(result_budget_chars=max(budget, len(allowed)))
            ran = await self.binding.registry.execute_parallel(allowed, ctx)
        # an input a hook set and the pipeline refused is still the one the call was tried with
        ran = [
            replace(o, args=c.args) if o.args is None and isinstance(c.args, Mapping) else o
            for o, c in zip(ran, allowed, strict=True)
        ]
        outcomes = iter(ran)
        return [refusals[i] if i in refusals else next(outcomes) for i in range(len(calls))]

    async def pre(self, call: ToolCall) -> ToolCall | str:
        """Emit ``tool:pre``: the call to run (its input as the hooks left it), or the reason
        it is refused (a hook denied it, the user did not approve it, or a hook failed)."""
        data = {"tool_name": call.name, "tool_call_id": call.id, "tool_input": call.args}
        try:
            answer = await self.emit("tool:pre", data)
        except Exception as exc:
            logger.exception("toolwire: a tool:pre hook failed; the call is refused")
            return f"a tool:pre hook failed ({type(exc).__name__}); the call was refused"
        return await verdict(self.coordinator, call, answer)

    async def observe(self, event: str, call: ToolCall, **data: Any) -> None:
        """Emit an event nothing may change (``tool:post``, ``tool:error``)."""
        payload = {"tool_name": call.name, "tool_call_id": call.id, **data}
        try:
            await self.emit(event, payload)
        except Exception:  # observing never changes a call
            logger.exception("toolwire: a %s hook failed", event)


class AmplifierTool:
    """One toolwire tool as an amplifier tool (spec 05's protocol)."""

    __slots__ = ("_bound", "_state")

    def __init__(self, state: MountState, bound: BoundTool) -> None:
        self._state = state
        self._bound = bound

    @property
    def name(self) -> str:
        """The tool's name."""
        return self._bound.name

    @property
    def description(self) -> str:
        """The tool's description, for the model."""
        return self._bound.description

    @property
    def input_schema(self) -> dict[str, Any]:
        """The tool's JSON Schema (a copy: changing it changes nothing)."""
        return self._state.binding.bind(self._bound.tool).parameters

    async def execute(self, input: dict[str, Any]) -> AmplifierToolResult:
        """Run one call through the registry's pipeline; never raises for what the call does."""
        state = self._state
        arguments = dict(input) if isinstance(input, Mapping) else {}
        call_id = arguments.pop(CALL_ID_KEY, None)
        if not isinstance(call_id, str) or not call_id:
            call_id = f"amp_{uuid.uuid4().hex[:16]}"
        call = ToolCall(id=call_id, name=self.name, args=arguments)
        outcome = await state.gatherer.submit(
            ("amplifier", id(state.coordinator)), call, state.base
        )
        if isinstance(outcome.result, Err) and outcome.result.reason == DENIED:
            return _to_result(state.binding.present(outcome, state.base, args=arguments))
        ran_with = dict(outcome.args) if outcome.args is not None else arguments
        bound = state.binding.present(outcome, state.base, args=ran_with)
        result = _to_result(bound)
        await state.observe("tool:post", call, tool_input=ran_with, result=result.model_dump())
        if not bound.ok:
            await state.observe("tool:error", call, error=result.error or {})
        return result

    def __repr__(self) -> str:
        return f"AmplifierTool(name={self.name!r})"


def _to_result(bound: BoundOutcome) -> AmplifierToolResult:
    if bound.ok:
        return AmplifierToolResult(success=True, output=bound.text)
    error = dict(to_amplifier(bound.outcome.result).error or {})
    error["message"] = bound.text
    return AmplifierToolResult(success=False, output=bound.text, error=error)
