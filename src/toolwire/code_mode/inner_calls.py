"""The inner-call bridge: a program's tool calls become real calls through the pipeline.

The calls a program has started and not yet received (one ``await``, or every call of an
``asyncio.gather``) run as **one batch** through the registry's ``execute_parallel``, with
the context and the admission (allowlist, filters, snapshot, approval tokens) of the batch
``run_code`` itself was called in: validation, hooks, approvals, quotas, capabilities,
timeouts, reducers, telemetry and the effect journal all apply. Each call's id is
``<program id>.<n>`` (``n`` counts the program's calls, across a pause), so the effect
journal recognises a call that already ran.

An answer crosses back as Python data: the tool's ``structured`` result when it has one, its
text otherwise. An error is raised inside the program as an exception it can catch:
``input_invalid`` → ``ValueError``, ``not_available`` → ``PermissionError``, anything else →
``RuntimeError``, the message naming the tool and the code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from toolwire.calls import CallOutcome, ToolCall, make_outcome
from toolwire.code_mode._flow import FlowState, flow_verdict
from toolwire.code_mode._settings import CodeModeSettings
from toolwire.context import ToolContext
from toolwire.execution.admit import Admission
from toolwire.execution.approvals import SpentApproval, pending_approval, take_approval
from toolwire.execution.flow import judged_by_program
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok
from toolwire.tools import Tool

__all__ = ["Approval", "InnerCalls", "PendingCall", "Settled", "raised"]

Settled: TypeAlias = dict[str, Any]
"""A settled answer as Monty takes it: ``{"return_value": ...}`` or
``{"exc_type": ..., "message": ...}`` (JSON, so a paused program's answers can be stored)."""

_EXCEPTIONS = {ErrorCode.INPUT_INVALID: "ValueError", ErrorCode.NOT_AVAILABLE: "PermissionError"}


def raised(exc_type: str, message: str) -> Settled:
    """The answer that raises ``exc_type(message)`` inside the program."""
    return {"exc_type": exc_type, "message": message}


@dataclass(frozen=True, kw_only=True, slots=True)
class PendingCall:
    """A call the program made and waits for.

    Attributes:
        call_id: Monty's id for the call (its future).
        tool_name: The registered tool.
        args: The arguments, positional ones bound to their names.
    """

    call_id: int
    tool_name: str
    args: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        """The call as stored with a paused program."""
        return {"call_id": self.call_id, "tool": self.tool_name, "args": self.args}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PendingCall:
        """A call read back from a paused program."""
        return cls(call_id=int(data["call_id"]), tool_name=str(data["tool"]), args=data["args"])


@dataclass(frozen=True, kw_only=True, slots=True)
class Approval:
    """A call that waits for a human: the token that approves it and what it would do.

    Attributes:
        call: The call.
        token: The approval token (``execute_parallel(..., approvals=[token])``).
        why: ``"requires_approval"`` (the tool asks) or ``"untrusted_to_sink"`` (the flow policy).
    """

    call: PendingCall
    token: str
    why: str


class InnerCalls:
    """Runs one program's calls under the batch ``run_code`` was called in.

    Args:
        registry: The registry ``run_code`` belongs to.
        ctx: ``run_code``'s context (the inner calls' budget is ``inner_result_chars``).
        admission: The admission of ``run_code``'s batch.
        settings: The code-mode settings.
        prefix: The program's id, the first part of each inner call's id.
        flow: What the program has read (the flow policy's state).
    """

    def __init__(
        self,
        *,
        registry: ToolRegistry,
        ctx: ToolContext,
        admission: Admission,
        settings: CodeModeSettings,
        prefix: str,
        flow: FlowState,
    ) -> None:
        self._registry = registry
        self._ctx = ctx.derive(result_budget_chars=settings.inner_result_chars)
        self._admission = admission
        self._allowed = sorted(admission.allowed) if admission.allowed is not None else None
        self._settings = settings
        self._prefix = prefix
        self.flow = flow
        self.cost_usd: float | None = None

    async def run(self, pending: Sequence[PendingCall]) -> dict[int, Settled | Approval]:
        """Answer ``pending`` as one batch; calls waiting for a human answer an `Approval`."""
        answers: dict[int, Settled | Approval] = {}
        to_run: list[PendingCall] = []
        spent: dict[int, SpentApproval] = {}
        for call in pending:
            tool = self._registry.get(call.tool_name)
            if tool is None:
                answers[call.call_id] = raised("NameError", f"no tool {call.tool_name!r}")
                continue
            verdict = flow_verdict(self.flow, tool, self._settings.after_untrusted)
            if verdict == "refuse":
                answers[call.call_id] = raised("PermissionError", self._refusal(tool))
            elif verdict == "approve" and tool.requires_approval is not True:
                taken = await self._flow_approval(tool, call)
                if isinstance(taken, SpentApproval):
                    spent[call.call_id] = taken
                    to_run.append(call)
                else:
                    answers[call.call_id] = taken
            else:
                to_run.append(call)
        if not to_run:
            return answers
        calls = [
            ToolCall(id=f"{self._prefix}.{call.call_id}", name=call.tool_name, args=call.args)
            for call in to_run
        ]
        adm = self._admission
        with judged_by_program(self._ctx, frozenset(call.id for call in calls)):  # judged above
            outcomes = await self._registry.execute_parallel(
                calls,
                self._ctx,
                allowed_tools=self._allowed,
                filter_opts=adm.filters,
                snapshot=adm.snapshot,
                approvals=adm.approvals or None,  # none: the batch's admission is not rebuilt
            )
        for call, outcome in zip(to_run, outcomes, strict=True):
            answer = self._answer(call, outcome)
            given = spent.get(call.call_id)
            result = outcome.result
            refused = isinstance(result, Err) and result.code is ErrorCode.NOT_AVAILABLE
            if given is not None and refused:  # refused before it ran: the approval still holds
                await given.give_back()
            answers[call.call_id] = answer
        return answers

    def _refusal(self, tool: Tool) -> str:
        return (
            f"{tool.name} sends data out, and this program has read untrusted output (from "
            f"{self.flow.untrusted_from}); the flow policy refuses the call"
        )

    async def _flow_approval(
        self, tool: Tool, call: PendingCall
    ) -> SpentApproval | Settled | Approval:
        backends = self._registry.backends
        factory = backends.kv_store_factory if backends is not None else None
        taken = await take_approval(
            self._registry.settings.approvals,
            factory,
            tool,
            call.args,
            self._ctx,
            self._admission.approvals,
        )
        if isinstance(taken, SpentApproval):
            return taken
        if taken.reason == "approval_required":
            found = pending_approval(make_outcome("", tool.name, taken, 0.0, False, None))
            if found is not None:
                return Approval(call=call, token=found.token, why="untrusted_to_sink")
        return raised("PermissionError", f"{tool.name}: {taken.error}")

    def _answer(self, call: PendingCall, outcome: CallOutcome) -> Settled | Approval:
        result = outcome.result
        tool = self._registry.get(call.tool_name)
        if isinstance(result, Ok):
            if tool is not None:
                self.flow.saw(tool)
            if result.cost_usd:
                self.cost_usd = (self.cost_usd or 0.0) + result.cost_usd
            value = result.structured if result.structured is not None else result.value
            return {"return_value": value}
        if result.reason == "approval_required":
            found = pending_approval(outcome)
            if found is not None:
                return Approval(call=call, token=found.token, why="requires_approval")
        if tool is not None and result.code is ErrorCode.EXECUTION_FAILED:
            self.flow.saw(tool)  # an untrusted tool's error text is untrusted too
        kind = _EXCEPTIONS.get(result.code, "RuntimeError")
        return raised(kind, f"{call.tool_name} failed ({result.code}): {result.error}")


def dumps(value: Any) -> str:
    """JSON for what a program returns or prints (anything else as its ``str``)."""
    return json.dumps(value, ensure_ascii=False, default=str)
