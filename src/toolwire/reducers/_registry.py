"""The reducer contract, its registry and the guard that keeps a broken reducer harmless.

A reducer turns one tool's result into a signal-only form before it enters the model's context:
a 3,000-line test log becomes the failures and the summary. Reducers are keyed by exact tool
name, are pure and deterministic, never call a model, and must not raise; `safe_reduce` still
guards every call and falls back to the original result.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from toolwire.errors import RegistrationError
from toolwire.results import Err, Ok, ToolResult

__all__ = [
    "GuardedReducer",
    "ReducerContext",
    "ReducerRegistry",
    "ToolResultReducer",
    "safe_reduce",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class ReducerContext:
    """What a reducer may know besides the result.

    Attributes:
        args: The arguments the tool was called with (after validation and hooks).
        turn_count: The current turn, 1-based; reducers may trim harder on later turns.
    """

    args: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    turn_count: int = 1


@runtime_checkable
class ToolResultReducer(Protocol):
    """Turns one tool's result into a shorter, signal-only result.

    ``reduce`` must be deterministic (same input, same output), must not call a model and must
    not raise: on any internal problem it returns the result it was given.
    """

    @property
    def tool_name(self) -> str:
        """The exact name of the tool whose results this reducer rewrites."""
        ...

    def reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        """Return the reduced result, or ``result`` itself when there is nothing to gain."""
        ...


class GuardedReducer(ABC):
    """A `ToolResultReducer` that cannot raise: `reduce` answers the result it was given when
    `_reduce` fails. Subclasses set ``tool_name`` and write `_reduce`."""

    tool_name: str

    def reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        """Return the reduced result, or ``result`` itself when there is nothing to gain or
        anything unexpected."""
        try:
            return self._reduce(result, ctx)
        except Exception:
            return result

    @abstractmethod
    def _reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        """The reduced result, or ``result`` itself; may raise on input it does not expect."""


def safe_reduce(reducer: ToolResultReducer, result: ToolResult, ctx: ReducerContext) -> ToolResult:
    """Run ``reducer`` and fall back to ``result`` when it raises or returns a non-result.

    Args:
        reducer: The reducer registered for the tool.
        result: What the tool returned.
        ctx: The call's arguments and turn.

    Returns:
        The reduced result, or ``result`` unchanged when the reducer misbehaved.
    """
    try:
        reduced = reducer.reduce(result, ctx)
    except Exception:
        return result
    if not isinstance(reduced, Ok | Err):
        return result
    return reduced


class ReducerRegistry:
    """One reducer per tool name, looked up by exact name.

    Registering a second reducer for a name raises `RegistrationError`: two reducers for one
    tool would make the output ambiguous. To replace a reducer, call the cleanup function that
    `register` returned, then register the new one.
    """

    __slots__ = ("_reducers",)

    def __init__(self) -> None:
        self._reducers: dict[str, ToolResultReducer] = {}

    def register(self, reducer: ToolResultReducer) -> Callable[[], None]:
        """Register ``reducer`` for ``reducer.tool_name``.

        Returns:
            A cleanup function that unregisters this reducer; calling it again is a no-op, and it
            never removes a reducer registered later under the same name.

        Raises:
            RegistrationError: ``tool_name`` is not a non-empty string, or a reducer is already
                registered for it.
        """
        name = getattr(reducer, "tool_name", None)
        if not isinstance(name, str) or not name:
            raise RegistrationError(
                f"reducer {reducer!r} needs a non-empty string attribute 'tool_name' naming the "
                "tool whose results it reduces"
            )
        if not callable(getattr(reducer, "reduce", None)):
            raise RegistrationError(
                f"reducer for tool '{name}' needs a method reduce(result, ctx) -> ToolResult"
            )
        if name in self._reducers:
            raise RegistrationError(
                f"a reducer is already registered for tool '{name}'; call the cleanup returned "
                "by register() first"
            )
        self._reducers[name] = reducer

        def unregister() -> None:
            if self._reducers.get(name) is reducer:
                del self._reducers[name]

        return unregister

    def get(self, tool_name: str) -> ToolResultReducer | None:
        """The reducer registered for exactly ``tool_name``, or ``None``."""
        return self._reducers.get(tool_name)

    def reduce(self, tool_name: str, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        """Apply the reducer for ``tool_name`` through `safe_reduce`; no reducer = unchanged."""
        reducer = self._reducers.get(tool_name)
        if reducer is None:
            return result
        return safe_reduce(reducer, result, ctx)

    def __contains__(self, tool_name: object) -> bool:
        return tool_name in self._reducers

    def __len__(self) -> int:
        return len(self._reducers)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._reducers))

    def __repr__(self) -> str:
        return f"ReducerRegistry({sorted(self._reducers)!r})"
