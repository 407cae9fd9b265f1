"""toolwire: the tool layer for Python LLM agents.

A `Tool` declares a name, a JSON schema, the capabilities it needs and an async ``execute``;
a `ToolRegistry` runs a model's batch of calls in parallel through a fixed pipeline and returns
one `CallOutcome` per call, in order, never raising. See the README and ``docs/``.
"""

from __future__ import annotations

from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities import ToolCapabilities
from toolwire.context import AbortSignal, Audience, ProgressEvent, ToolContext
from toolwire.decorator import tool
from toolwire.execution.gates import FilterOptions
from toolwire.hooks import (
    AfterCall,
    BeforeCall,
    BeforeDecision,
    HookRegistry,
    ToolEvent,
    deny,
    replace_args,
)
from toolwire.reducers.registry import ReducerContext, ReducerRegistry, ToolResultReducer
from toolwire.registry import ToolDefinition, ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult, err, ok
from toolwire.tools import CachePolicy, Tool, ToolAnnotations, define_tool

__all__ = [
    "AbortSignal",
    "AfterCall",
    "Audience",
    "BeforeCall",
    "BeforeDecision",
    "CachePolicy",
    "CallOutcome",
    "Err",
    "ErrorCode",
    "FilterOptions",
    "HookRegistry",
    "Ok",
    "ProgressEvent",
    "ReducerContext",
    "ReducerRegistry",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolCapabilities",
    "ToolContext",
    "ToolDefinition",
    "ToolEvent",
    "ToolRegistry",
    "ToolResult",
    "ToolResultReducer",
    "__version__",
    "define_tool",
    "deny",
    "err",
    "ok",
    "replace_args",
    "tool",
]

__version__ = "0.1.0"
