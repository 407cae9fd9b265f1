"""Hooks around every call, and event observers.

Three kinds of function plug into a registry's `HookRegistry`:

- **observers** receive every `ToolEvent`: ``tool:pre`` (before execution, with the arguments),
  ``tool:post`` (after, with the result), ``tool:error`` (an exception, a timeout, an abort, or a
  failing after-hook) and ``progress`` (a tool's `ProgressEvent`). An observer that raises is
  ignored: observing never changes a call.
- **before_tool_call** handlers run in priority order (lower first, then registration order) and
  may **deny** the call (it gets ``not_available`` with the handler's reason) or **replace the
  arguments** (re-validated against the tool's schema; an invalid replacement is answered
  ``input_invalid``). Modifications chain: each handler sees the arguments the previous one
  left. Deny beats modify: the first denial stops the chain and no modification applies. A
  handler that raises **denies** (fail closed) — unlike ethos and amplifier, which let the call
  through.
- **after_tool_call** handlers run in the same order and may replace the result; each sees the
  result the previous one left. A handler that raises leaves the result as it was and is
  reported as ``tool:error``.

Handlers may be sync or async, and may be limited to some tool names.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from toolwire.context import ProgressEvent, ToolContext
from toolwire.errors import RegistrationError
from toolwire.results import Err, Ok, ToolResult

__all__ = [
    "AfterCall",
    "AfterHandler",
    "BeforeCall",
    "BeforeDecision",
    "BeforeHandler",
    "EventName",
    "HookRegistry",
    "Observer",
    "ToolEvent",
    "deny",
    "replace_args",
]

logger = logging.getLogger("toolwire.hooks")

EventName: TypeAlias = Literal["tool:pre", "tool:post", "tool:error", "progress"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolEvent:
    """One observable moment of a call.

    Attributes:
        name: ``tool:pre``, ``tool:post``, ``tool:error`` or ``progress``.
        tool_name: The tool's name.
        tool_call_id: The call's id.
        data: ``input`` (pre), ``result`` and ``duration_ms`` (post), ``error`` (error),
            ``progress`` (progress).
    """

    name: EventName
    tool_name: str
    tool_call_id: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True, slots=True)
class BeforeCall:
    """What a ``before_tool_call`` handler sees."""

    tool_name: str
    tool_call_id: str
    args: Mapping[str, Any]
    ctx: ToolContext


@dataclass(frozen=True, kw_only=True, slots=True)
class AfterCall:
    """What an ``after_tool_call`` handler sees."""

    tool_name: str
    tool_call_id: str
    args: Mapping[str, Any]
    result: ToolResult
    duration_ms: float
    ctx: ToolContext


@dataclass(frozen=True, kw_only=True, slots=True)
class BeforeDecision:
    """A before-handler's answer: deny with a reason, or replace the arguments."""

    deny: str | None = None
    args: Mapping[str, Any] | None = None


def deny(reason: str) -> BeforeDecision:
    """Deny the call; the model reads ``reason``."""
    return BeforeDecision(deny=reason or "denied by a hook")


def replace_args(args: Mapping[str, Any]) -> BeforeDecision:
    """Run the call with these arguments instead (they are validated again)."""
    return BeforeDecision(args=dict(args))


Observer: TypeAlias = Callable[[ToolEvent], Awaitable[None] | None]
BeforeHandler: TypeAlias = Callable[
    [BeforeCall], BeforeDecision | Awaitable[BeforeDecision | None] | None
]
AfterHandler: TypeAlias = Callable[[AfterCall], ToolResult | Awaitable[ToolResult | None] | None]

H = TypeVar("H")


@dataclass(frozen=True, slots=True)
class _Registered(Generic[H]):
    handler: H
    priority: int
    order: int
    tools: frozenset[str] | None
    name: str

    def applies_to(self, tool_name: str) -> bool:
        return self.tools is None or tool_name in self.tools


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


@dataclass(frozen=True, kw_only=True, slots=True)
class BeforeOutcome:
    """The combined result of the before-handlers: a denial, new arguments, or neither."""

    denied: str | None = None
    args: Mapping[str, Any] | None = None


class HookRegistry:
    """Observers and before/after handlers; one per `ToolRegistry` (or shared by several).

    Attributes:
        has_before: Whether any before-handler is registered.
        has_after: Whether any after-handler is registered.
        has_observers: Whether any observer is registered.

    The three flags are kept up to date as handlers come and go (the pipeline reads them on
    every call, so they are plain attributes; do not assign them).
    """

    def __init__(self) -> None:
        self._observers: list[Observer] = []
        self._before: list[_Registered[BeforeHandler]] = []
        self._after: list[_Registered[AfterHandler]] = []
        self._order = 0
        self.has_before = False
        self.has_after = False
        self.has_observers = False

    def _refresh(self) -> None:
        self.has_before = bool(self._before)
        self.has_after = bool(self._after)
        self.has_observers = bool(self._observers)

    def observe(self, observer: Observer) -> Callable[[], None]:
        """Add an observer; returns an idempotent function that removes it."""
        self._observers.append(observer)
        self._refresh()

        def remove() -> None:
            if observer in self._observers:
                self._observers.remove(observer)
                self._refresh()

        return remove

    def _add(
        self,
        bucket: list[_Registered[Any]],
        handler: Any,
        priority: int,
        tools: Collection[str] | None,
        name: str | None,
    ) -> Callable[[], None]:
        if not callable(handler):
            raise RegistrationError(f"a hook handler must be callable, got {handler!r}")
        if isinstance(tools, str):
            raise RegistrationError(f"tools= takes a list of tool names, not the string {tools!r}")
        self._order += 1
        entry = _Registered(
            handler,
            priority,
            self._order,
            frozenset(tools) if tools is not None else None,
            name or str(getattr(handler, "__name__", None) or repr(handler)),
        )
        bucket.append(entry)
        bucket.sort(key=lambda e: (e.priority, e.order))
        self._refresh()

        def remove() -> None:
            if entry in bucket:
                bucket.remove(entry)
                self._refresh()

        return remove

    def before_tool_call(
        self,
        handler: BeforeHandler,
        *,
        priority: int = 0,
        tools: Collection[str] | None = None,
        name: str | None = None,
    ) -> Callable[[], None]:
        """Add a before-handler (lower priority runs first); returns its remover."""
        return self._add(self._before, handler, priority, tools, name)

    def after_tool_call(
        self,
        handler: AfterHandler,
        *,
        priority: int = 0,
        tools: Collection[str] | None = None,
        name: str | None = None,
    ) -> Callable[[], None]:
        """Add an after-handler (lower priority runs first); returns its remover."""
        return self._add(self._after, handler, priority, tools, name)

    async def emit(self, event: ToolEvent) -> None:
        """Deliver ``event`` to every observer; observer failures are logged and ignored."""
        for observer in tuple(self._observers):
            try:
                await _maybe_await(observer(event))
            except Exception:
                logger.exception("toolwire observer %r failed on %s", observer, event.name)

    def emit_progress_nowait(self, event: ProgressEvent, tool_call_id: str) -> None:
        """Deliver a progress event to observers, synchronously, from the emitting thread.

        Progress may come from a worker thread (sync tools), so an async observer cannot be
        awaited here: it receives ``tool:pre``/``tool:post``/``tool:error`` but not progress.
        """
        wrapped = ToolEvent(
            name="progress",
            tool_name=event.tool_name,
            tool_call_id=tool_call_id,
            data={"progress": event},
        )
        for observer in tuple(self._observers):
            try:
                value = observer(wrapped)
                if inspect.iscoroutine(value):
                    value.close()
            except Exception:
                logger.exception("toolwire observer %r failed on progress", observer)

    async def run_before(self, call: BeforeCall) -> BeforeOutcome:
        """Run the before-handlers for ``call``; see the module docstring for the rules."""
        args: Mapping[str, Any] = call.args
        changed = False
        for entry in tuple(self._before):
            if not entry.applies_to(call.tool_name):
                continue
            current = BeforeCall(
                tool_name=call.tool_name, tool_call_id=call.tool_call_id, args=args, ctx=call.ctx
            )
            try:
                decision = await _maybe_await(entry.handler(current))
            except Exception as exc:
                return BeforeOutcome(
                    denied=f"Tool {call.tool_name} was blocked: the '{entry.name}' hook failed "
                    f"({type(exc).__name__}: {exc})"
                )
            if decision is None:
                continue
            if not isinstance(decision, BeforeDecision):
                return BeforeOutcome(
                    denied=f"Tool {call.tool_name} was blocked: the '{entry.name}' hook returned "
                    f"{type(decision).__name__}, not a BeforeDecision"
                )
            if decision.deny is not None:  # the model must always read a reason
                reason = decision.deny.strip() or f"denied by the '{entry.name}' hook"
                return BeforeOutcome(denied=reason)
            if decision.args is not None:
                args = decision.args
                changed = True
        return BeforeOutcome(args=args if changed else None)

    async def run_after(self, call: AfterCall) -> ToolResult:
        """Run the after-handlers; returns the (possibly replaced) result."""
        result = call.result
        for entry in tuple(self._after):
            if not entry.applies_to(call.tool_name):
                continue
            current = AfterCall(
                tool_name=call.tool_name,
                tool_call_id=call.tool_call_id,
                args=call.args,
                result=result,
                duration_ms=call.duration_ms,
                ctx=call.ctx,
            )
            try:
                replaced = await _maybe_await(entry.handler(current))
            except Exception as exc:
                await self.emit(
                    ToolEvent(
                        name="tool:error",
                        tool_name=call.tool_name,
                        tool_call_id=call.tool_call_id,
                        data={
                            "error": f"after hook '{entry.name}' failed: {exc}",
                            "hook": entry.name,
                        },
                    )
                )
                continue
            if replaced is None:
                continue
            if isinstance(replaced, Ok | Err):
                result = replaced
            else:
                await self.emit(
                    ToolEvent(
                        name="tool:error",
                        tool_name=call.tool_name,
                        tool_call_id=call.tool_call_id,
                        data={
                            "error": f"after hook '{entry.name}' returned "
                            f"{type(replaced).__name__}, not a ToolResult; ignored",
                            "hook": entry.name,
                        },
                    )
                )
        return result
