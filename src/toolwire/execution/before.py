"""Stage 3, before-hooks: a handler may deny the call or replace its arguments.

A denial is answered ``not_available`` with the handler's reason; replaced arguments are
validated again, and an invalid replacement is answered ``input_invalid``. See
`toolwire.execution.hooks` for the order, the chaining and the fail-closed rule.
"""

from __future__ import annotations

from typing import Any

from toolwire.context import ToolContext
from toolwire.execution.hooks import BeforeCall, HookRegistry
from toolwire.execution.validate import validate_args
from toolwire.results import Err, ErrorCode
from toolwire.tools import Tool

__all__ = ["run_before_hooks"]


async def run_before_hooks(
    hooks: HookRegistry, tool: Tool, call_id: str, args: dict[str, Any], ctx: ToolContext
) -> dict[str, Any] | Err:
    """The arguments to run with (the same or replaced), or the refusal."""
    decision = await hooks.run_before(
        BeforeCall(tool_name=tool.name, tool_call_id=call_id, args=args, ctx=ctx)
    )
    if decision.denied is not None:
        return Err(decision.denied, ErrorCode.NOT_AVAILABLE, reason="hook_denied")
    if decision.args is None:
        return args
    return validate_args(tool, dict(decision.args), "Arguments set by a hook are invalid")
