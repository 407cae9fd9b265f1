"""`DeferredTools`: which registered tools are deferred, and the tool search that finds them.

The registry's side of `toolwire.tool_search`: a deferred tool is left out of the definitions
and of the provider listing until a session finds it. The rule deciding what is deferred comes
with the attached ``ToolSearch`` (`ToolRegistry.use_tool_search`); by default it is the tools'
own ``defer_loading`` flag. The answer is cached until the registry changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from toolwire.tools import Tool

__all__ = ["Deferral", "DeferredTools", "flagged_deferred"]

Deferral: TypeAlias = Callable[[Sequence[Tool]], frozenset[str]]
"""A rule: the names of the deferred tools among all registered ones."""


def flagged_deferred(tools: Sequence[Tool]) -> frozenset[str]:
    """The default deferral: the tools that set ``defer_loading``."""
    return frozenset(tool.name for tool in tools if tool.defer_loading)


class DeferredTools:
    """A registry's deferral rule, its cached answer and the attached search.

    Attributes:
        search: The attached ``toolwire.tool_search.ToolSearch``, or ``None``.
    """

    __slots__ = ("_deferral", "_names", "search")

    def __init__(self) -> None:
        self._deferral: Deferral = flagged_deferred
        self._names: frozenset[str] | None = None
        self.search: object | None = None

    def forget(self) -> None:
        """Drop the cached answer (the registry changed)."""
        self._names = None

    def use(self, search: object, deferral: Deferral) -> None:
        """Attach ``search`` and decide with ``deferral`` from now on."""
        self.search = search
        self._deferral = deferral
        self._names = None

    def names(
        self, tools: Callable[[], Sequence[Tool]], attach_default: Callable[[], object]
    ) -> frozenset[str]:
        """The deferred tools among ``tools()``; when some are and no search is attached,
        ``attach_default()`` attaches one first (which may register its own tool)."""
        names = self._names
        if names is None:
            names = self._deferral(tools())
            if names and self.search is None:
                attach_default()  # attaches itself; registering tool_search resets the cache
                names = self._deferral(tools())
            self._names = names
        return names
