"""Approvals over MCP: the server asks the user through the client, or refuses clearly.

A ``tools/call`` the registry answers ``approval_required`` (`toolwire.execution.approvals`)
becomes a question to the user, the form ``{"approve": boolean}`` with the tool and its
arguments (secrets redacted) in the message:

- on a 2026-07-28 connection, through the input-required flow: the result is
  ``resultType: "input_required"`` with one elicitation in ``inputRequests`` and the approval
  token as ``requestState``; the client asks, then calls again with the answer, and an accepted
  ``approve: true`` runs the call with that token (bound, as always, to the tool's definition,
  the arguments and the session, and good once);
- on an older connection, through an ``elicitation/create`` request while the call waits;
- a client that declared no elicitation capability cannot ask anyone: the call is answered
  ``not_available`` (``approval_unsupported``) saying so, and never runs.

A declined or cancelled question, or ``approve: false``, answers ``not_available``
(``approval_declined``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import mcp_types as mt
from mcp.server.context import ServerRequestContext

from toolwire.calls import CallOutcome, ToolCall
from toolwire.context import ToolContext
from toolwire.execution.approvals import PendingApproval, pending_approval
from toolwire.results import Err, ErrorCode
from toolwire.safety._redaction import redact_secrets

if TYPE_CHECKING:
    from toolwire.providers._snapshot import ToolSnapshot
    from toolwire.registry import ToolRegistry

__all__ = ["APPROVAL_INPUT_KEY", "APPROVAL_SCHEMA", "call_with_approval"]

APPROVAL_INPUT_KEY = "toolwire_approval"
"""The key of the approval question in ``inputRequests`` / ``inputResponses``."""
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve", "description": "Run this call once"}
    },
    "required": ["approve"],
}
"""The form the user answers."""
_SHOWN_ARGS_CHARS = 2000


async def call_with_approval(
    registry: ToolRegistry,
    ctx: ServerRequestContext[Any, Any],
    params: mt.CallToolRequestParams,
    tool_ctx: ToolContext,
    call_id: str,
    snapshot: ToolSnapshot | None = None,
) -> CallOutcome | dict[str, Any]:
    """Run the call; when it needs approval, ask the user (or refuse clearly).

    ``snapshot``: what the session may call, when that is more than the registry offers everyone
    (the deferred tools it found, `toolwire.mcp.server.session_tools`).

    Returns the outcome, or the wire dict of an ``input_required`` result to send instead.
    """
    arguments = params.arguments or {}
    token = params.request_state
    if token is not None and params.input_responses is not None:
        answer = params.input_responses.get(APPROVAL_INPUT_KEY)
        if not _approved(answer):
            return _refused(call_id, params.name, arguments, "approval_declined")
        approvals: list[str] = [token]
    else:
        approvals = []
    call = ToolCall(id=call_id, name=params.name, args=arguments)
    (outcome,) = await registry.execute_parallel(
        [call], tool_ctx, snapshot=snapshot, approvals=approvals
    )
    pending = pending_approval(outcome)
    if pending is None:
        return outcome
    capabilities = ctx.session.client_capabilities
    if capabilities is None or capabilities.elicitation is None:
        return _refused(call_id, params.name, arguments, "approval_unsupported")
    question = mt.ElicitRequestFormParams(
        message=_message(pending), requested_schema=APPROVAL_SCHEMA
    )
    if not ctx.session.can_send_request:  # 2026-07-28: ask through the client's retry
        required = mt.InputRequiredResult(
            input_requests={APPROVAL_INPUT_KEY: mt.ElicitRequest(params=question)},
            request_state=pending.token,
        )
        return required.model_dump(by_alias=True, mode="json", exclude_none=True)
    answer = await ctx.session.elicit_form(
        question.message, APPROVAL_SCHEMA, related_request_id=ctx.request_id
    )
    if not _approved(answer):
        return _refused(call_id, params.name, arguments, "approval_declined")
    (outcome,) = await registry.execute_parallel(
        [call], tool_ctx, snapshot=snapshot, approvals=[pending]
    )
    return outcome


def _approved(answer: object) -> bool:
    return (
        isinstance(answer, mt.ElicitResult)
        and answer.action == "accept"
        and answer.content is not None
        and answer.content.get("approve") is True
    )


def _message(pending: PendingApproval) -> str:
    shown = json.dumps(dict(pending.args), ensure_ascii=False, default=repr)
    if len(shown) > _SHOWN_ARGS_CHARS:
        shown = shown[:_SHOWN_ARGS_CHARS] + " …"
    shown = redact_secrets(shown).text
    return f"Allow the tool {pending.tool_name} to run once with these arguments?\n{shown}"


def _refused(call_id: str, name: str, arguments: dict[str, Any], reason: str) -> CallOutcome:
    if reason == "approval_unsupported":
        message = (
            f"Tool {name} needs the user's approval before it runs, and this client cannot ask "
            "(it declared no elicitation capability); the call was not run. Use a client that "
            "supports elicitation to approve it."
        )
    else:
        message = f"The user did not approve running {name}; the call was not run."
    return CallOutcome(
        tool_call_id=call_id,
        name=name,
        result=Err(message, ErrorCode.NOT_AVAILABLE, reason=reason),
        duration_ms=0.0,
        args=arguments,
    )
