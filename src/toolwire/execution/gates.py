"""Who may see and call which tool: the toolset allowlist and the MCP/plugin filters.

A tool is *built-in* unless its name starts with ``mcp__`` or it was registered with a
``plugin_id``. The allowlist (``allowed_tools``) gates built-ins only: ``None`` means
unrestricted, ``[]`` denies every built-in; ``always_include`` bypasses it. `FilterOptions`
gate MCP and plugin tools, and ``exclude_tools`` removes a tool from the surface entirely —
it beats ``always_include``, plugin allowlists and explicit toolset membership.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.errors import ConfigurationError
from toolwire.results import Err, ErrorCode
from toolwire.tools import DirectCall, Tool, direct_call_of

__all__ = [
    "FilterOptions",
    "RegisteredTool",
    "check_call",
    "coerce_filter_options",
    "mcp_parts",
    "passes_filter",
    "visible_in_definitions",
]


@dataclass(frozen=True, slots=True)
class RegisteredTool:
    """A tool and the plugin that registered it (``None`` for built-ins and MCP tools).

    ``declares_capabilities`` (for the gate every call passes) and ``direct`` (the tool's
    `DirectCall`, which the run stage takes instead of ``execute``) are worked out once, at
    registration.
    """

    tool: Tool
    plugin_id: str | None = None
    declares_capabilities: bool = field(init=False, compare=False, repr=False)
    direct: DirectCall | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "declares_capabilities", not self.tool.capabilities.is_empty)
        object.__setattr__(self, "direct", direct_call_of(self.tool.execute))

    @property
    def is_builtin(self) -> bool:
        """Neither an MCP tool nor a plugin's."""
        return self.plugin_id is None and not self.tool.name.startswith("mcp__")


def _names(value: Collection[str] | None, what: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise ConfigurationError(f"FilterOptions.{what} takes a list of names, not {value!r}")
    return tuple(value)


@dataclass(frozen=True, kw_only=True, slots=True)
class FilterOptions:
    """MCP, plugin and surface filters (``None`` = no filter of that kind).

    Attributes:
        allowed_mcp_servers: Only MCP tools of these servers pass (``[]`` blocks all MCP tools).
        allowed_plugins: Only plugin tools of these plugins pass (``[]`` = built-ins only).
        allowed_mcp_tools: Per server, the bare tool names that pass; servers absent from the
            mapping are not restricted.
        exclude_tools: Names removed from this surface, whatever else allows them.
    """

    allowed_mcp_servers: tuple[str, ...] | None = None
    allowed_plugins: tuple[str, ...] | None = None
    allowed_mcp_tools: Mapping[str, tuple[str, ...]] | None = None
    exclude_tools: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "allowed_mcp_servers", _names(self.allowed_mcp_servers, "allowed_mcp_servers"))
        set_(self, "allowed_plugins", _names(self.allowed_plugins, "allowed_plugins"))
        set_(self, "exclude_tools", _names(self.exclude_tools, "exclude_tools"))
        if self.allowed_mcp_tools is not None:
            per_server = {
                str(server): _names(names, "allowed_mcp_tools") or ()
                for server, names in self.allowed_mcp_tools.items()
            }
            set_(self, "allowed_mcp_tools", per_server)

    @property
    def cache_key(self) -> tuple[Any, ...]:
        """A hashable identity, for caching definitions."""
        tools = (
            None
            if self.allowed_mcp_tools is None
            else tuple(sorted(self.allowed_mcp_tools.items()))
        )
        return (self.allowed_mcp_servers, self.allowed_plugins, tools, self.exclude_tools)


def coerce_filter_options(value: FilterOptions | Mapping[str, Any] | None) -> FilterOptions | None:
    """Accept `FilterOptions`, a mapping of its fields, or ``None``.

    Raises:
        ConfigurationError: the mapping has unknown keys.
    """
    if value is None or isinstance(value, FilterOptions):
        return value
    try:
        return FilterOptions(**dict(value))
    except TypeError as exc:
        raise ConfigurationError(
            f"filter_opts: {exc}; known keys are allowed_mcp_servers, allowed_plugins, "
            "allowed_mcp_tools, exclude_tools"
        ) from None


def mcp_parts(name: str) -> tuple[str, str] | None:
    """``mcp__<server>__<bare>`` → ``(server, bare)``; bare names may contain ``__``."""
    if not name.startswith("mcp__"):
        return None
    parts = name.split("__")
    if len(parts) < 3:
        return None
    return parts[1], "__".join(parts[2:])


def passes_filter(entry: RegisteredTool, opts: FilterOptions | None) -> bool:
    """The filter checks, in order: exclusion, MCP server, MCP tool, plugin."""
    if opts is None:
        return True
    name = entry.tool.name
    if opts.exclude_tools is not None and name in opts.exclude_tools:
        return False
    parts = mcp_parts(name)
    if parts is not None:
        server, bare = parts
        if opts.allowed_mcp_servers is not None and server not in opts.allowed_mcp_servers:
            return False
        restricted = opts.allowed_mcp_tools
        if restricted is not None and server in restricted and bare not in restricted[server]:
            return False
    elif name.startswith("mcp__") and opts.allowed_mcp_servers is not None:
        return False  # a malformed MCP name belongs to no allowed server
    return not (
        entry.plugin_id is not None
        and opts.allowed_plugins is not None
        and entry.plugin_id not in opts.allowed_plugins
    )


def _toolset_allows(entry: RegisteredTool, allowed: frozenset[str] | None) -> bool:
    if allowed is None or not entry.is_builtin or entry.tool.always_include:
        return True
    return entry.tool.name in allowed


def visible_in_definitions(
    entry: RegisteredTool, allowed: frozenset[str] | None, opts: FilterOptions | None
) -> bool:
    """The static gates of ``definitions`` (availability is checked separately, every time)."""
    return _toolset_allows(entry, allowed) and passes_filter(entry, opts)


def check_call(
    entry: RegisteredTool, allowed: frozenset[str] | None, opts: FilterOptions | None
) -> Err | None:
    """The execution-time gates after the unknown-tool check; ``None`` lets the call on."""
    name = entry.tool.name
    if opts is not None and opts.exclude_tools is not None and name in opts.exclude_tools:
        return Err(
            f"Tool {name} is not available on this surface",
            ErrorCode.NOT_AVAILABLE,
            reason="excluded",
        )
    if not _toolset_allows(entry, allowed) or not passes_filter(entry, opts):
        return Err(
            f"Tool {name} is not permitted for this personality",
            ErrorCode.NOT_AVAILABLE,
            reason="not_permitted",
        )
    return None
