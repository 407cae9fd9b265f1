"""toolwire: the tool layer for Python LLM agents.

A `Tool` declares a name, a JSON schema, the capabilities it needs and an async ``execute``;
a `ToolRegistry` runs a model's batch of calls in parallel through a fixed pipeline and returns
one `CallOutcome` per call, in order, never raising. See the README and ``docs/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire._moved import install as _install_moved_modules
from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities import ToolCapabilities
from toolwire.context import AbortSignal, Audience, ProgressEvent, ToolContext
from toolwire.decorator import tool
from toolwire.errors import (
    AbortedError,
    BinaryNotAllowedError,
    CapabilityError,
    ConfigurationError,
    FormatError,
    HostNotAllowedError,
    PathNotReachableError,
    ProviderError,
    RegistrationError,
    SecretNotConfiguredError,
    SecretNotDeclaredError,
    StoreError,
    ToolDefinitionError,
    ToolwireError,
)
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
from toolwire.lazy import publish as _publish
from toolwire.principals import Principal
from toolwire.reducers._registry import ReducerContext, ReducerRegistry, ToolResultReducer
from toolwire.registry import ToolDefinition, ToolRegistry
from toolwire.registry_settings import RegistrySettings
from toolwire.results import Err, ErrorCode, Ok, ToolResult, err, ok
from toolwire.tool_options import ToolOptions
from toolwire.tools import CachePolicy, Tool, ToolAnnotations, define_tool
from toolwire.version import __version__

if TYPE_CHECKING:
    from toolwire.capabilities.defaults import create_backends
    from toolwire.capabilities.kinds.network._refusals import PolicyRefusal
    from toolwire.capabilities.kinds.process._backends import (
        BackgroundRequest,
        LocalProcessBackend,
        ProcessBackend,
        ProcessRequest,
    )
    from toolwire.capabilities.kinds.process.background import ProcessManager
    from toolwire.capabilities.resolver import CapabilityBackends, CapabilityScope
    from toolwire.config import ToolwireConfig, load_config
    from toolwire.mcp import McpProvider, McpServerConfig, ServeOptions, serve_registry
    from toolwire.mcp.server.peer import PeerUnavailableError
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
    from toolwire.stores import KeyValueBackend, create_kv_backend
    from toolwire.toolbox import command_guard_hook, default_tools
    from toolwire.wiring import create_registry, open_registry

# Heavier parts load on first use, so `import toolwire` stays cheap.
_LAZY: dict[str, str] = {
    "CapabilityBackends": "toolwire.capabilities.resolver",
    "CapabilityScope": "toolwire.capabilities.resolver",
    "KeyValueBackend": "toolwire.stores",
    "LocalProcessBackend": "toolwire.capabilities.kinds.process._backends",
    "BackgroundRequest": "toolwire.capabilities.kinds.process._backends",
    "McpProvider": "toolwire.mcp",
    "McpServerConfig": "toolwire.mcp",
    "PeerUnavailableError": "toolwire.mcp.server.peer",
    "PolicyRefusal": "toolwire.capabilities.kinds.network._refusals",
    "Presenter": "toolwire.presenting",
    "PresenterOptions": "toolwire.presenting",
    "ProcessBackend": "toolwire.capabilities.kinds.process._backends",
    "ProcessManager": "toolwire.capabilities.kinds.process.background",
    "ProcessRequest": "toolwire.capabilities.kinds.process._backends",
    "ProviderContext": "toolwire.providers",
    "ServeOptions": "toolwire.mcp",
    "ToolProvider": "toolwire.providers",
    "ToolSnapshot": "toolwire.providers",
    "ToolwireConfig": "toolwire.config",
    "cached": "toolwire.providers",
    "combined": "toolwire.providers",
    "command_guard_hook": "toolwire.toolbox",
    "create_backends": "toolwire.capabilities.defaults",
    "create_kv_backend": "toolwire.stores",
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


__getattr__, __dir__ = _lazy_exports("toolwire", _LAZY, globals(), public_module="toolwire")
_install_moved_modules()  # 0.1 module paths import as their new homes, with a warning


__all__ = [
    "AbortSignal",
    "AbortedError",
    "AfterCall",
    "Audience",
    "BackgroundRequest",
    "BeforeCall",
    "BeforeDecision",
    "BinaryNotAllowedError",
    "CachePolicy",
    "CallOutcome",
    "CapabilityBackends",
    "CapabilityError",
    "CapabilityScope",
    "ConfigurationError",
    "Err",
    "ErrorCode",
    "FilterOptions",
    "FormatError",
    "HookRegistry",
    "HostNotAllowedError",
    "KeyValueBackend",
    "LocalProcessBackend",
    "McpProvider",
    "McpServerConfig",
    "Ok",
    "PathNotReachableError",
    "PeerUnavailableError",
    "PolicyRefusal",
    "Presenter",
    "PresenterOptions",
    "Principal",
    "ProcessBackend",
    "ProcessManager",
    "ProcessRequest",
    "ProgressEvent",
    "ProviderContext",
    "ProviderError",
    "ReducerContext",
    "ReducerRegistry",
    "RegistrationError",
    "RegistrySettings",
    "SecretNotConfiguredError",
    "SecretNotDeclaredError",
    "ServeOptions",
    "StoreError",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolCapabilities",
    "ToolContext",
    "ToolDefinition",
    "ToolDefinitionError",
    "ToolEvent",
    "ToolOptions",
    "ToolProvider",
    "ToolRegistry",
    "ToolResult",
    "ToolResultReducer",
    "ToolSnapshot",
    "ToolwireConfig",
    "ToolwireError",
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

# Reprs, docs and pickles show the path users import (``toolwire.ToolResult``), as httpx does;
# the lazy names get the same on first use (``public_module`` above).
for _name in __all__:
    if _name in globals():
        _publish(globals()[_name], __name__)
del _name
