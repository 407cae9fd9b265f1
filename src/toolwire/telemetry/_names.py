"""The attribute, span and metric names toolwire's telemetry emits.

The ``gen_ai.*`` names follow the OpenTelemetry semantic conventions for generative AI tool
execution (development status: `execute_tool` spans and the ``gen_ai.execute_tool.duration``
metric); ``toolwire.*`` names are toolwire's own, for what the conventions do not cover.
"""

from __future__ import annotations

__all__ = [
    "BATCH_SIZE",
    "BATCH_SPAN",
    "BUDGET_CHARS",
    "CACHED",
    "CALL_DURATION",
    "CALL_ERRORS",
    "CONVERSATION_ID",
    "DRY_RUN",
    "ERROR_CAUSE",
    "ERROR_REASON",
    "ERROR_TYPE",
    "EXECUTE_TOOL",
    "FAILED_CALLS",
    "OPERATION_NAME",
    "OTHER_TOOL",
    "TOOL_CALL_ARGUMENTS",
    "TOOL_CALL_ID",
    "TOOL_CALL_RESULT",
    "TOOL_DESCRIPTION",
    "TOOL_NAME",
    "TOOL_TYPE",
    "TRIMMED_CHARS",
    "TRIMMED_CHARS_METRIC",
]

# -- the GenAI semantic conventions ----------------------------------------------------------

EXECUTE_TOOL = "execute_tool"
"""``gen_ai.operation.name`` of a tool call; its span is named ``execute_tool {tool name}``."""
OPERATION_NAME = "gen_ai.operation.name"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
"""``function`` for a tool toolwire runs, ``extension`` for an MCP server's tool."""
TOOL_DESCRIPTION = "gen_ai.tool.description"
TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
"""Opt-in: the arguments as JSON, redacted."""
TOOL_CALL_RESULT = "gen_ai.tool.call.result"
"""Opt-in: the result the model reads (or the error message), redacted."""
CONVERSATION_ID = "gen_ai.conversation.id"
"""The batch's ``ToolContext.session_id``."""
ERROR_TYPE = "error.type"
"""The call's `ErrorCode` value (``input_invalid``, ``not_available``, ...)."""
CALL_DURATION = "gen_ai.execute_tool.duration"
"""Histogram, seconds: each call's own wall time."""
OTHER_TOOL = "_OTHER"
"""``gen_ai.tool.name`` on metrics for a name no registered tool has (bounded cardinality)."""

# -- toolwire's own --------------------------------------------------------------------------

BATCH_SPAN = "execute_parallel"
"""The span around one batch; the calls' spans are its children."""
BATCH_SIZE = "toolwire.batch.size"
FAILED_CALLS = "toolwire.batch.failed_calls"
BUDGET_CHARS = "toolwire.batch.budget_chars"
DRY_RUN = "toolwire.dry_run"
CACHED = "toolwire.cached"
ERROR_REASON = "toolwire.error.reason"
"""``Err.reason`` (``unknown_tool``, ``capability_refused``, ...): a code, never content."""
ERROR_CAUSE = "toolwire.error.cause"
"""``Err.cause`` (``timeout``, ``aborted``, an exception's type name): a code, never content."""
TRIMMED_CHARS = "toolwire.result.trimmed_chars"
"""Characters of the result the output budget cut (the ``[truncated — N chars total]``)."""
CALL_ERRORS = "toolwire.execute_tool.errors"
"""Counter: calls answered with an error, by ``error.type`` and ``gen_ai.tool.name``."""
TRIMMED_CHARS_METRIC = "toolwire.execute_tool.trimmed_chars"
"""Counter, characters: what the output budget cut from results, by ``gen_ai.tool.name``."""
