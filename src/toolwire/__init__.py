"""toolwire: the tool layer for Python LLM agents.

A `Tool` declares a name, a JSON schema, the capabilities it needs and an async ``execute``;
a `ToolRegistry` runs a model's batch of calls in parallel through a fixed pipeline and returns
one `CallOutcome` per call, in order, never raising. See the README and ``docs/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities import ToolCapabilities
from toolwire.context import AbortSignal, Audience, ProgressEvent, ToolContext
from toolwire.decorator import tool
from toolwire.execution.gates import FilterOptions
from toolwire.execution.hooks import (
    AfterCall,
    BeforeCall,
    BeforeDecision,
    HookRegistry,
    ToolEvent,
    deny,
    replace_args,
)
from toolwire.lazy import lazy_exports as _lazy_exports
from toolwire.principals import Principal
from toolwire.reducers.registry import ReducerContext, ReducerRegistry, ToolResultReducer
from toolwire.registry import ToolDefinition, ToolRegistry
from toolwire.registry_settings import RegistrySettings
from toolwire.results import Err, ErrorCode, Ok, ToolResult, err, ok
from toolwire.tool_options import ToolOptions
from toolwire.tools import CachePolicy, Tool, ToolAnnotations, define_tool
from toolwire.version import __version__

if TYPE_CHECKING:
    from toolwire.backends.background import ProcessManager
    from toolwire.backends.defaults import create_backends
    from toolwire.backends.kv import KeyValueBackend, create_kv_backend
    from toolwire.backends.process_backends import (
        BackgroundRequest,
        LocalProcessBackend,
        ProcessBackend,
        ProcessRequest,
    )
    from toolwire.backends.resolver import CapabilityBackends, CapabilityScope
    from toolwire.config import ToolwireConfig, load_config
    from toolwire.mcp import McpProvider, McpServerConfig, ServeOptions, serve_registry
    from toolwire.presenting import Presenter, PresenterOptions, present
    from toolwire.providers import (
        ProviderContext,
        ToolProvider,
        ToolSnapshot,
        cached,
        combined,
        gated_tools,
        list_tools,
        skill_scoped_tools,
        static_tools,
        take_snapshot,
    )
    from toolwire.reducers import default_reducers
    from toolwire.toolbox import command_guard_hook, default_tools
    from toolwire.wiring import create_registry, open_registry

# Heavier parts load on first use, so `import toolwire` stays cheap.
_LAZY: dict[str, str] = {
    "BackgroundRequest": "toolwire.backends.process_backends",
    "CapabilityBackends": "toolwire.backends.resolver",
    "CapabilityScope": "toolwire.backends.resolver",
    "KeyValueBackend": "toolwire.backends.kv",
    "LocalProcessBackend": "toolwire.backends.process_backends",
    "McpProvider": "toolwire.mcp",
    "McpServerConfig": "toolwire.mcp",
    "Presenter": "toolwire.presenting",
    "PresenterOptions": "toolwire.presenting",
    "ProcessBackend": "toolwire.backends.process_backends",
    "ProcessManager": "toolwire.backends.background",
    "ProcessRequest": "toolwire.backends.process_backends",
    "ProviderContext": "toolwire.providers",
    "ServeOptions": "toolwire.mcp",
    "ToolProvider": "toolwire.providers",
    "ToolSnapshot": "toolwire.providers",
    "ToolwireConfig": "toolwire.config",
    "cached": "toolwire.providers",
    "combined": "toolwire.providers",
    "command_guard_hook": "toolwire.toolbox",
    "create_backends": "toolwire.backends.defaults",
    "create_kv_backend": "toolwire.backends.kv",
    "create_registry": "toolwire.wiring",
    "default_reducers": "toolwire.reducers",
    "default_tools": "toolwire.toolbox",
    "gated_tools": "toolwire.providers",
    "list_tools": "toolwire.providers",
    "load_config": "toolwire.config",
    "open_registry": "toolwire.wiring",
    "present": "toolwire.presenting",
    "serve_registry": "toolwire.mcp",
    "skill_scoped_tools": "toolwire.providers",
    "static_tools": "toolwire.providers",
    "take_snapshot": "toolwire.providers",
}


__getattr__, __dir__ = _lazy_exports("toolwire", _LAZY, globals())


__all__ = [
    "AbortSignal",
    "AfterCall",
    "Audience",
    "BackgroundRequest",
    "BeforeCall",
    "BeforeDecision",
    "CachePolicy",
    "CallOutcome",
    "CapabilityBackends",
    "CapabilityScope",
    "Err",
    "ErrorCode",
    "FilterOptions",
    "HookRegistry",
    "KeyValueBackend",
    "LocalProcessBackend",
    "McpProvider",
    "McpServerConfig",
    "Ok",
    "Presenter",
    "PresenterOptions",
    "Principal",
    "ProcessBackend",
    "ProcessManager",
    "ProcessRequest",
    "ProgressEvent",
    "ProviderContext",
    "ReducerContext",
    "ReducerRegistry",
    "RegistrySettings",
    "ServeOptions",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolCapabilities",
    "ToolContext",
    "ToolDefinition",
    "ToolEvent",
    "ToolOptions",
    "ToolProvider",
    "ToolRegistry",
    "ToolResult",
    "ToolResultReducer",
    "ToolSnapshot",
    "ToolwireConfig",
    "__version__",
    "cached",
    "combined",
    "command_guard_hook",
    "create_backends",
    "create_kv_backend",
    "create_registry",
    "default_reducers",
    "default_tools",
    "define_tool",
    "deny",
    "err",
    "gated_tools",
    "list_tools",
    "load_config",
    "ok",
    "open_registry",
    "present",
    "replace_args",
    "serve_registry",
    "skill_scoped_tools",
    "static_tools",
    "take_snapshot",
    "tool",
]
