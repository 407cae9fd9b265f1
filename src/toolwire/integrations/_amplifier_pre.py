"""What a ``tool:pre`` answer makes of a call, the way amplifier-core means it, failing closed.

amplifier-core's hook registry runs the ``tool:pre`` handlers in order: ``deny`` and
``ask_user`` short-circuit, ``modify`` chains the event data through the handlers that follow
(the registry then answers ``continue`` carrying the changed data). An orchestrator honours
all three; so does the toolwire mount:

- ``deny``: the call is refused with the hook's reason;
- ``ask_user``: the coordinator asks its approval system (amplifier-core's own
  ``process_hook_result``, with its logging and timeout handling; a coordinator without it is
  asked through ``approval_system.request_approval``). The call runs only when the user
  allows it; no approval system, an error, or an answer that is not an "allow" refuses it,
  and a timeout takes the hook's ``approval_default``;
- a changed ``tool_input`` (``modify``) is what the call runs with, validated again by the
  pipeline; a hook that renames the call or replaces its input with something that is not an
  object refuses it (the mount cannot honour that);
- an action this module does not know refuses the call.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from toolwire.calls import ToolCall
from toolwire.integrations._extras import missing_extra

try:
    from amplifier_core.approval import ApprovalTimeoutError  # type: ignore[import-untyped]
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    raise missing_extra("toolwire.integrations.amplifier", "amplifier", exc) from exc

__all__ = ["HOOK_NAME", "verdict"]

logger = logging.getLogger("toolwire.integrations.amplifier")

HOOK_NAME = "toolwire"
"""The hook name the mount gives amplifier-core's approval flow (it appears in its logs)."""

_PASS = frozenset({None, "continue", "modify", "inject_context"})
_ALLOW = frozenset({"allow", "allow once", "allow always"})
"""The answers amplifier-core's approval flow takes as allowing (case-insensitive)."""
_DEFAULT_OPTIONS = ["Allow", "Deny"]
_DEFAULT_PROMPT = "Allow this operation?"


async def verdict(coordinator: Any, call: ToolCall, answer: Any) -> ToolCall | str:
    """The call to run after ``tool:pre`` answered ``answer``, or the reason it is refused.

    Args:
        coordinator: The coordinator the tools are mounted on (its approval system asks).
        call: The call as the model sent it.
        answer: What ``hooks.emit("tool:pre", ...)`` returned (a ``HookResult``, or ``None``).
    """
    action = getattr(answer, "action", None)
    if action == "deny":
        return str(getattr(answer, "reason", None) or "denied by a tool:pre hook")
    if action == "ask_user":
        refusal = await _ask(coordinator, call, answer)
        if refusal is not None:
            return refusal
    elif action not in _PASS:
        return f"a tool:pre hook answered {action!r}, which the toolwire mount does not honour"
    return _modified(call, getattr(answer, "data", None))


def _modified(call: ToolCall, data: Any) -> ToolCall | str:
    """``call`` with the ``tool_input`` a hook left in the event data."""
    if not isinstance(data, Mapping) or "tool_input" not in data:
        return call
    if data.get("tool_name", call.name) != call.name:
        return (
            f"a tool:pre hook renamed the call to {data.get('tool_name')!r}; the toolwire "
            "mount runs a call as the tool it was made for, so it was refused"
        )
    tool_input = data["tool_input"]
    if not isinstance(tool_input, Mapping):
        return "a tool:pre hook replaced the tool input with something that is not an object"
    return replace(call, args=dict(tool_input))


async def _ask(coordinator: Any, call: ToolCall, answer: Any) -> str | None:
    """Ask the user through the coordinator; ``None`` when they allow the call."""
    process = getattr(coordinator, "process_hook_result", None)
    try:
        if process is not None:
            decided = await process(answer, "tool:pre", HOOK_NAME)
            if getattr(decided, "action", None) == "continue":
                return None
            reason = getattr(decided, "reason", None)
            return str(reason or f"{call.name} was not approved")
        return await _ask_directly(coordinator, call, answer)
    except Exception as exc:
        logger.exception("toolwire: asking for approval failed; the call is refused")
        return f"asking for approval failed ({type(exc).__name__}); the call was refused"


async def _ask_directly(coordinator: Any, call: ToolCall, answer: Any) -> str | None:
    """amplifier's ``ApprovalSystem`` protocol, for a coordinator without its approval flow."""
    system = getattr(coordinator, "approval_system", None)
    if system is None or not hasattr(system, "request_approval"):
        return f"{call.name} needs the user's approval and the coordinator has no approval system"
    prompt = str(getattr(answer, "approval_prompt", None) or _DEFAULT_PROMPT)
    options = list(getattr(answer, "approval_options", None) or _DEFAULT_OPTIONS)
    timeout = float(getattr(answer, "approval_timeout", 300.0))
    default = getattr(answer, "approval_default", "deny")
    try:
        choice = await system.request_approval(prompt, options, timeout, default)
    except (TimeoutError, ApprovalTimeoutError):
        if default == "allow":
            return None
        return f"approval timed out: {prompt}"
    if isinstance(choice, str) and choice.strip().lower() in _ALLOW:
        return None
    return f"User denied: {prompt}"
