"""`gated_tools`: filter another provider's tools with a predicate, failing closed."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeAlias

from toolwire.errors import ConfigurationError
from toolwire.providers._base import ProviderContext, ToolProvider
from toolwire.tools import Tool

_ToolList: TypeAlias = list[Tool]

__all__ = ["GatePredicate", "GatedTools", "gated_tools"]

GatePredicate: TypeAlias = Callable[[Tool, ProviderContext], bool]
"""``(tool, ctx) -> bool``: only a return value of exactly ``True`` lets the tool through."""


class GatedTools:
    """Decorates a provider: keeps the inner tools for which the predicate returns ``True``.

    The inner provider is asked first; the predicate then runs once per tool with the
    iteration's context. A predicate that raises is never read as "allow": the exception
    propagates out of `list` (so `list_tools` reports a failed discovery). Anything but
    ``True`` — ``None``, ``1``, ``"yes"`` — denies. The result is synchronous exactly when the
    inner provider's is, and gates stack (the outer gate sees the inner gate's output).
    """

    __slots__ = ("_id", "_inner", "_predicate")

    def __init__(self, inner: ToolProvider, predicate: GatePredicate, *, id: str = "gated") -> None:
        if not callable(predicate):
            raise ConfigurationError(
                "gated_tools() needs a callable predicate(tool, ctx) -> bool as its second argument"
            )
        self._inner = inner
        self._predicate = predicate
        self._id = id

    @property
    def id(self) -> str:
        """``"gated"`` unless given."""
        return self._id

    def list(self, ctx: ProviderContext) -> _ToolList | Awaitable[_ToolList]:
        """The inner tools the predicate allows, in order; awaitable iff the inner one is."""
        value = self._inner.list(ctx)
        if inspect.isawaitable(value):
            return self._filter_later(value, ctx)
        return self._filter(value, ctx)

    async def _filter_later(
        self, pending: Awaitable[Sequence[Tool]], ctx: ProviderContext
    ) -> _ToolList:
        return self._filter(await pending, ctx)

    def _filter(self, tools: Sequence[Tool], ctx: ProviderContext) -> _ToolList:
        return [tool for tool in tools if self._predicate(tool, ctx) is True]

    def __repr__(self) -> str:
        return f"GatedTools({self._inner!r}, id={self._id!r})"


def gated_tools(inner: ToolProvider, predicate: GatePredicate, *, id: str = "gated") -> GatedTools:
    """A provider showing only the tools of ``inner`` that ``predicate(tool, ctx)`` allows.

    Raises:
        ConfigurationError: ``predicate`` is not callable.
    """
    return GatedTools(inner, predicate, id=id)
