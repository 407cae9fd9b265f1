"""`combined`: several providers as one, in order; a duplicate name keeps its first tool."""

from __future__ import annotations

import builtins
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeAlias

import anyio

from toolwire.errors import ConfigurationError
from toolwire.providers._base import ProviderContext, ToolProvider, ToolShadowed, provider_id
from toolwire.tools import Tool

_ToolList: TypeAlias = list[Tool]

__all__ = ["CombinedTools", "combined"]

_log = logging.getLogger("toolwire.providers")

ShadowHandler = Callable[[ToolShadowed], None]


class CombinedTools:
    """The union of several providers' tools, in provider order then each provider's order.

    **Duplicate rule — first wins**: when two providers offer the same name, the tool from the
    earlier provider is kept and the later one is dropped (never both: APIs reject duplicate
    names). Each drop is reported as `ToolShadowed` to ``on_shadowed`` on every listing; without
    a handler it is logged once per (name, providers) at WARNING on ``toolwire.providers``.

    Synchronous when every child answers synchronously; otherwise the awaitable children are
    awaited concurrently. If any child raises, the error propagates (no partial list).
    """

    __slots__ = ("_id", "_logged", "_on_shadowed", "_providers")

    def __init__(
        self,
        providers: Sequence[ToolProvider],
        *,
        id: str = "combined",
        on_shadowed: ShadowHandler | None = None,
    ) -> None:
        self._providers = tuple(providers)
        for index, provider in enumerate(self._providers):
            if not callable(getattr(provider, "list", None)):
                raise ConfigurationError(
                    f"combined() got {type(provider).__name__} at position {index}; every "
                    "argument must be a ToolProvider (an object with list(ctx))"
                )
        self._id = id
        self._on_shadowed = on_shadowed
        self._logged: set[tuple[str, str, str]] = set()

    @property
    def id(self) -> str:
        """``"combined"`` unless given."""
        return self._id

    @property
    def providers(self) -> tuple[ToolProvider, ...]:
        """The child providers, in order."""
        return self._providers

    def list(self, ctx: ProviderContext) -> _ToolList | Awaitable[_ToolList]:
        """Every child's tools, first occurrence of a name wins; awaitable iff a child's is."""
        answers: builtins.list[object] = []
        try:
            for provider in self._providers:
                answers.append(provider.list(ctx))
        except BaseException:
            for answer in answers:
                _close(answer)
            raise
        if any(inspect.isawaitable(answer) for answer in answers):
            return self._merge_later(answers, ctx)
        return self._merge(answers, ctx)  # type: ignore[arg-type]

    async def _merge_later(self, answers: builtins.list[object], ctx: ProviderContext) -> _ToolList:
        resolved: builtins.list[object] = builtins.list(answers)

        async def resolve(index: int, pending: Awaitable[Sequence[Tool]]) -> None:
            try:
                resolved[index] = await pending
            finally:
                _close(pending)  # a no-op once awaited; closes one a sibling's failure skipped

        try:
            async with anyio.create_task_group() as group:
                for index, answer in enumerate(answers):
                    if inspect.isawaitable(answer):
                        group.start_soon(resolve, index, answer)
        except BaseExceptionGroup as failures:
            raise _first_leaf(failures) from None
        return self._merge(resolved, ctx)  # type: ignore[arg-type]

    def _merge(self, answers: Sequence[Sequence[Tool]], ctx: ProviderContext) -> _ToolList:
        merged: _ToolList = []
        owner: dict[str, str] = {}
        for provider, tools in zip(self._providers, answers, strict=True):
            pid = provider_id(provider)
            for tool in tools:
                kept = owner.get(tool.name)
                if kept is None:
                    owner[tool.name] = pid
                    merged.append(tool)
                else:
                    self._report(
                        ToolShadowed(
                            name=tool.name,
                            kept_provider_id=kept,
                            dropped_provider_id=pid,
                            iteration=ctx.iteration,
                        )
                    )
        return merged

    def _report(self, event: ToolShadowed) -> None:
        if self._on_shadowed is not None:
            self._on_shadowed(event)
            return
        key = (event.name, event.kept_provider_id, event.dropped_provider_id)
        if key not in self._logged:
            self._logged.add(key)
            _log.warning(
                "tool %r from provider %r is shadowed by the one from %r (first wins)",
                event.name,
                event.dropped_provider_id,
                event.kept_provider_id,
            )

    def __repr__(self) -> str:
        return f"CombinedTools({list(self._providers)!r}, id={self._id!r})"


def _close(answer: object) -> None:
    close = getattr(answer, "close", None)
    if inspect.iscoroutine(answer) and callable(close):
        close()


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


def combined(
    *providers: ToolProvider, id: str = "combined", on_shadowed: ShadowHandler | None = None
) -> CombinedTools:
    """One provider offering every child's tools, in order; a repeated name keeps the first.

    Args:
        providers: The children, highest precedence first.
        id: The provider id.
        on_shadowed: Called with a `ToolShadowed` for each dropped duplicate, every listing.

    Raises:
        ConfigurationError: An argument is not a provider.
    """
    return CombinedTools(providers, id=id, on_shadowed=on_shadowed)
