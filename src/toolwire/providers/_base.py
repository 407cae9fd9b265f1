"""The `ToolProvider` contract, its context, its events, and `list_tools` (how a caller asks).

A provider answers one question per iteration: *which tools should the model see right now?*
``list(ctx)`` returns a sequence of tools, or an awaitable of one for discovery-style providers
(an MCP catalogue, a hub). Callers go through `list_tools`, which awaits only a real awaitable,
so a synchronous provider costs no checkpoint at all.

A provider that raises is loud: `list_tools` emits `DiscoveryFailed` and raises
`toolwire.errors.ProviderError` chaining the cause. Silently dropping tools mid-conversation
makes the agent non-deterministic and is harder to debug than a crash.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, TypeAlias, runtime_checkable

from toolwire.context import AbortSignal
from toolwire.errors import ProviderError
from toolwire.tools import Tool

__all__ = [
    "DISCOVERY_COMPLETED",
    "DISCOVERY_FAILED",
    "TOOL_SHADOWED",
    "DiscoveryCompleted",
    "DiscoveryFailed",
    "ProviderContext",
    "ProviderEvent",
    "ProviderEventHandler",
    "ToolProvider",
    "ToolShadowed",
    "list_tools",
    "list_tools_sync",
    "provider_id",
]

DISCOVERY_COMPLETED = "tools.discovery_completed"
DISCOVERY_FAILED = "tools.discovery_failed"
TOOL_SHADOWED = "tools.shadowed"


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderContext:
    """What a provider may look at to decide which tools are visible. Read-only.

    Attributes:
        iteration: The agent loop's iteration, 1-based.
        session_id: The conversation or session the tools are for.
        active_skill_id: The skill currently active, if any (case-sensitive).
        personality_id: The agent personality, if any.
        extra: Anything else a custom provider keys on (tenant, principal, ...); stored as a
            read-only copy.
        abort_signal: Discovery-style providers should stop waiting when it fires.
    """

    iteration: int = 1
    session_id: str | None = None
    active_skill_id: str | None = None
    personality_id: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    abort_signal: AbortSignal | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))


@runtime_checkable
class ToolProvider(Protocol):
    """Answers, once per iteration, which tools the model sees.

    Implementations are pure and reentrant: the same context gives the same tools, nothing
    observable is mutated, and concurrent calls are safe. ``list`` returns a **new** list on
    every call (callers may mutate it) in a stable order (the model may read position as a
    hint). Return a plain sequence when the answer is computed synchronously; return an
    awaitable only when discovery really does I/O.
    """

    @property
    def id(self) -> str:
        """A stable id for observability; it is the ``provider_id`` of provider events."""
        ...

    def list(self, ctx: ProviderContext) -> Sequence[Tool] | Awaitable[Sequence[Tool]]:
        """The tools visible for this context, in order; a new list every call."""
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class DiscoveryCompleted:
    """A provider listed its tools.

    Attributes:
        provider_id: The provider's id.
        iteration: ``ctx.iteration`` of the call.
        duration_ms: Wall time of the listing, in milliseconds.
        tool_count: How many tools it returned.
    """

    event: ClassVar[str] = DISCOVERY_COMPLETED
    provider_id: str
    iteration: int
    duration_ms: float
    tool_count: int


@dataclass(frozen=True, kw_only=True, slots=True)
class DiscoveryFailed:
    """A provider raised (or returned something that is not a list of tools).

    Attributes:
        provider_id: The provider's id.
        error_type: The exception's class name, such as ``"TimeoutError"``.
        message: ``str(exception)``.
        iteration: ``ctx.iteration`` of the call.
        duration_ms: Wall time until the failure, in milliseconds.
    """

    event: ClassVar[str] = DISCOVERY_FAILED
    provider_id: str
    error_type: str
    message: str
    iteration: int
    duration_ms: float


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolShadowed:
    """Two tools had the same name; the first was kept, the later one dropped.

    Attributes:
        name: The duplicated tool name.
        kept_provider_id: The provider whose tool the model sees and calls.
        dropped_provider_id: The provider whose tool was dropped.
        iteration: ``ctx.iteration`` of the call.
    """

    event: ClassVar[str] = TOOL_SHADOWED
    name: str
    kept_provider_id: str
    dropped_provider_id: str
    iteration: int


ProviderEvent: TypeAlias = DiscoveryCompleted | DiscoveryFailed | ToolShadowed
"""Every event the provider layer emits; ``type(e).event`` is its dotted name."""

ProviderEventHandler: TypeAlias = Callable[[ProviderEvent], None]


def provider_id(provider: object) -> str:
    """The provider's ``id``, or its class name when it has none."""
    value = getattr(provider, "id", None)
    return value if isinstance(value, str) and value else type(provider).__name__


def _checked(value: object, pid: str) -> list[Tool]:
    """Copy a provider's answer into a new list, refusing anything that is not tools."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise TypeError(
            f"provider {pid!r} returned {type(value).__name__}; list(ctx) must return a "
            "sequence of Tool (or an awaitable of one)"
        )
    tools = list(value)
    for index, item in enumerate(tools):
        if not isinstance(item, Tool):
            raise TypeError(
                f"provider {pid!r} returned {type(item).__name__} at index {index}; "
                "every item must be a toolwire Tool"
            )
    return tools


class _Discovery:
    """Timing and event emission shared by the sync and async paths of one listing."""

    __slots__ = ("ctx", "on_event", "pid", "started")

    def __init__(
        self, provider: object, ctx: ProviderContext, on_event: ProviderEventHandler | None
    ) -> None:
        self.pid = provider_id(provider)
        self.ctx = ctx
        self.on_event = on_event
        self.started = time.perf_counter()

    def _elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0

    def completed(self, tools: list[Tool]) -> list[Tool]:
        if self.on_event is not None:
            self.on_event(
                DiscoveryCompleted(
                    provider_id=self.pid,
                    iteration=self.ctx.iteration,
                    duration_ms=self._elapsed_ms(),
                    tool_count=len(tools),
                )
            )
        return tools

    def failed(self, exc: BaseException) -> ProviderError:
        if self.on_event is not None:
            self.on_event(
                DiscoveryFailed(
                    provider_id=self.pid,
                    error_type=type(exc).__name__,
                    message=str(exc),
                    iteration=self.ctx.iteration,
                    duration_ms=self._elapsed_ms(),
                )
            )
        return ProviderError(
            f"tool provider {self.pid!r} failed to list its tools at iteration "
            f"{self.ctx.iteration}: {type(exc).__name__}: {exc}",
            provider_id=self.pid,
        )


async def list_tools(
    provider: ToolProvider, ctx: ProviderContext, *, on_event: ProviderEventHandler | None = None
) -> list[Tool]:
    """Ask a provider for this iteration's tools; await only when it returned an awaitable.

    A synchronous provider is called without a single checkpoint (no await happens), so it is
    as cheap as calling ``provider.list(ctx)`` yourself.

    Args:
        provider: The provider to ask.
        ctx: This iteration's context.
        on_event: Receives `DiscoveryCompleted` or `DiscoveryFailed`.

    Returns:
        A new list of the provider's tools, in its order.

    Raises:
        ProviderError: The provider raised, or returned something other than tools; the
            original exception is the ``__cause__``. Cancellation is not converted.
    """
    discovery = _Discovery(provider, ctx, on_event)
    try:
        value: object = provider.list(ctx)
        if inspect.isawaitable(value):
            value = await value
        tools = _checked(value, discovery.pid)
    except Exception as exc:
        raise discovery.failed(exc) from exc
    return discovery.completed(tools)


def list_tools_sync(
    provider: ToolProvider, ctx: ProviderContext, *, on_event: ProviderEventHandler | None = None
) -> list[Tool]:
    """`list_tools` for synchronous callers and synchronous providers.

    Works inside or outside an event loop. A provider that answers with an awaitable cannot be
    served here: that is reported like any other discovery failure (the awaitable is closed,
    never left dangling).

    Raises:
        ProviderError: The provider raised, returned an awaitable, or returned something
            other than tools.
    """
    discovery = _Discovery(provider, ctx, on_event)
    try:
        value: object = provider.list(ctx)
        if inspect.isawaitable(value):
            close = getattr(value, "close", None)
            if callable(close):
                close()
            raise TypeError(
                f"provider {discovery.pid!r} is asynchronous; use `await list_tools(...)`"
            )
        tools = _checked(value, discovery.pid)
    except Exception as exc:
        raise discovery.failed(exc) from exc
    return discovery.completed(tools)
