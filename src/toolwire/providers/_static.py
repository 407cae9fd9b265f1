"""`static_tools`: a fixed list, copied once, answered synchronously."""

from __future__ import annotations

from collections.abc import Iterable

from toolwire.errors import RegistrationError, ToolDefinitionError
from toolwire.providers._base import ProviderContext
from toolwire.tools import Tool

__all__ = ["StaticTools", "static_tools"]


class StaticTools:
    """A provider that always offers the same tools, in the order given.

    The input is copied at construction, so later changes to the caller's list do not leak
    in; every `list` call returns a new list.
    """

    __slots__ = ("_id", "_tools")

    def __init__(self, tools: Iterable[Tool], *, id: str = "static") -> None:
        frozen = tuple(tools)
        seen: set[str] = set()
        for index, tool in enumerate(frozen):
            if not isinstance(tool, Tool):
                raise ToolDefinitionError(
                    f"static_tools() got {type(tool).__name__} at index {index}; pass Tool "
                    "objects (from define_tool or @tool)"
                )
            if tool.name in seen:
                raise RegistrationError(
                    f"static_tools() got two tools named {tool.name!r}; tool names must be "
                    "unique (rename one, or compose providers with combined())"
                )
            seen.add(tool.name)
        self._tools = frozen
        self._id = id

    @property
    def id(self) -> str:
        """``"static"`` unless given."""
        return self._id

    def list(self, ctx: ProviderContext) -> list[Tool]:
        """A new list of the tools; ``ctx`` is ignored."""
        return list(self._tools)

    def __repr__(self) -> str:
        return f"StaticTools({[t.name for t in self._tools]!r}, id={self._id!r})"


def static_tools(tools: Iterable[Tool], *, id: str = "static") -> StaticTools:
    """A provider that offers ``tools`` on every iteration.

    Raises:
        ToolDefinitionError: An item is not a `Tool`.
        RegistrationError: Two tools share a name.
    """
    return StaticTools(tools, id=id)
