"""`DeferralRules`: which tools are deferred (left out of the definitions until found).

A tool is deferred when it says so (``Tool.defer_loading``), when its name, toolset or MCP
server is listed, or — with a threshold — when the registry holds more than ``max_tools``
tools or more than ``max_chars`` characters of definitions: then every tool is deferred but
the ``keep`` list, ``always_include`` tools and ``tool_search`` itself.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from toolwire.errors import ConfigurationError
from toolwire.tools import Tool

__all__ = ["TOOL_SEARCH_NAME", "DeferralRules", "definitions_chars"]

TOOL_SEARCH_NAME = "tool_search"
"""The built-in search tool's name; never deferred."""


def definitions_chars(tools: Iterable[Tool]) -> int:
    """The characters of the tools' neutral definitions as compact JSON."""
    return sum(
        len(json.dumps({"name": t.name, "description": t.description, "parameters": t.schema}))
        for t in tools
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class DeferralRules:
    """What to defer besides the tools that set ``defer_loading``. The name collections are
    kept as frozensets.

    Attributes:
        names: Tool names to defer, or shell-style patterns (``mcp__jira__*``): ``[tools]
            defer`` in ``toolwire.toml``.
        toolsets: Toolsets whose tools are deferred.
        servers: Bridged MCP servers whose tools (``mcp__<server>__*``) are deferred.
        max_tools: Defer everything deferrable past this many tools (``None``: no threshold).
        max_chars: Defer everything deferrable past this many characters of definitions.
        keep: Tool names never deferred by the threshold.
    """

    names: Collection[str] = frozenset()
    toolsets: Collection[str] = frozenset()
    servers: Collection[str] = frozenset()
    max_tools: int | None = None
    max_chars: int | None = None
    keep: Collection[str] = frozenset()
    _patterns: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for field_name in ("names", "toolsets", "servers", "keep"):
            value = getattr(self, field_name)
            if isinstance(value, str):
                raise ConfigurationError(
                    f"DeferralRules({field_name}=...) takes a collection of strings, not the "
                    f"string {value!r}; pass [{value!r}]"
                )
            object.__setattr__(self, field_name, frozenset(value))
        patterns = tuple(sorted(n for n in self.names if any(c in n for c in "*?[")))
        object.__setattr__(self, "_patterns", patterns)
        for field_name in ("max_tools", "max_chars"):
            value = getattr(self, field_name)
            if value is not None and (isinstance(value, bool) or value < 0):
                raise ConfigurationError(
                    f"DeferralRules({field_name}={value!r}) must be a count >= 0 or None"
                )

    def __call__(self, tools: Sequence[Tool]) -> frozenset[str]:
        """The names of the deferred tools among ``tools``."""
        deferred = {tool.name for tool in tools if self.defers(tool)}
        if self._past_threshold(tools):
            deferred.update(
                tool.name
                for tool in tools
                if not tool.always_include and tool.name not in self.keep
            )
        deferred.discard(TOOL_SEARCH_NAME)
        return frozenset(deferred)

    def defers(self, tool: Tool) -> bool:
        """Whether ``tool`` is deferred whatever the threshold."""
        return (
            tool.defer_loading
            or tool.name in self.names
            or any(fnmatch.fnmatchcase(tool.name, pattern) for pattern in self._patterns)
            or (tool.toolset is not None and tool.toolset in self.toolsets)
            or (tool.mcp_server is not None and tool.mcp_server in self.servers)
        )

    def _past_threshold(self, tools: Sequence[Tool]) -> bool:
        if self.max_tools is not None and len(tools) > self.max_tools:
            return True
        return self.max_chars is not None and definitions_chars(tools) > self.max_chars
