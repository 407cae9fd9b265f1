"""A sub-agent's world: its registry (only the allowed tools) and its context (a fresh one).

The child registry holds the tools of the chosen toolsets, and runs them with the parent's
backends and the host's hooks and reducers, so every child call goes through the whole
pipeline. A tool that runs sub-agents itself (it declares ``subagent``) is withheld from a
child at the depth limit. The child context keeps who the parent is (personality, team,
memory scope, working directory, network policy) and starts everything else afresh: its own
session id (``<parent session>:sub:<call id>``), ``agent_id="depth:<n>"``, turn 1, no files
read yet, its own turn budget and abort signal.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any

from toolwire.capabilities._backends import CapabilityBackends
from toolwire.capabilities.kinds.subagent.kind import SUBAGENT
from toolwire.capabilities.kinds.subagent.seam import ParentContext, depth_agent_id
from toolwire.context import AbortSignal, ProgressEvent, ToolContext
from toolwire.execution.hooks import HookRegistry
from toolwire.reducers._registry import ReducerRegistry
from toolwire.registry import ToolRegistry
from toolwire.registry_settings import RegistrySettings
from toolwire.toolbox.guard import command_guard_hook
from toolwire.tools import Tool

__all__ = ["ChildSettings", "child_context", "child_registry", "child_tools"]

logger = logging.getLogger("toolwire.capabilities.kinds.subagent")


@dataclass(frozen=True, kw_only=True, slots=True)
class ChildSettings:
    """How child registries are built (the host's choices, fixed in `Delegation`).

    Attributes:
        hooks: The hooks child calls go through (share the parent registry's to apply the
            same guards); when ``None``, a fresh `HookRegistry` with the command guard, so a
            sub-agent's commands are never less guarded than the default.
        reducers: The child's result reducers; the built-in ones when ``None``.
        default_timeout_s: Timeout of child tools without their own.
        max_concurrency: At most this many child calls of one batch at once.
    """

    hooks: HookRegistry | None = None
    reducers: ReducerRegistry | None = None
    default_timeout_s: float | None = 300.0
    max_concurrency: int | None = None


def child_tools(
    tools: Iterable[Tool], toolsets: Collection[str], *, may_delegate: bool
) -> list[Tool]:
    """The tools of ``toolsets`` (unique by name, first wins); those declaring ``subagent``
    only when ``may_delegate``."""
    chosen: dict[str, Tool] = {}
    for candidate in tools:
        if candidate.toolset not in toolsets or candidate.name in chosen:
            continue
        if not may_delegate and candidate.capabilities.get(SUBAGENT) is not None:
            continue
        chosen[candidate.name] = candidate
    return list(chosen.values())


def child_registry(
    tools: Iterable[Tool], backends: CapabilityBackends, settings: ChildSettings
) -> ToolRegistry:
    """A registry of ``tools`` over the parent's ``backends``.

    It owns nothing: the backends (and their processes) stay the parent's, so it is never
    closed.
    """
    hooks = settings.hooks
    if hooks is None:
        hooks = HookRegistry()
        command_guard_hook(hooks)
    chosen = RegistrySettings(
        hooks=hooks,
        default_timeout_s=settings.default_timeout_s,
        max_concurrency=settings.max_concurrency,
        provider_id="subagent",
    )
    if settings.reducers is not None:
        chosen = replace(chosen, reducers=settings.reducers)
    registry = ToolRegistry(backends, settings=chosen)
    registry.register_all(tools)
    return registry


def child_context(
    parent: ParentContext,
    *,
    depth: int,
    signal: AbortSignal,
    budget_chars: int,
    description: str,
) -> ToolContext:
    """The context of a sub-agent of ``parent`` at ``depth`` (see the module docstring).

    Its tools' progress events reach the parent's emitter as
    ``<description> › <tool>: <message>``, with their own audience.
    """
    suffix = parent.tool_call_id or uuid.uuid4().hex[:12]
    return ToolContext(
        session_id=f"{parent.session_id}:sub:{suffix}",
        session_key=f"{parent.session_key}:sub:{suffix}",
        platform=parent.platform,
        working_dir=parent.working_dir,
        agent_id=depth_agent_id(depth),
        personality_id=parent.personality_id,
        memory_scope=parent.memory_scope,
        memory_scope_id=parent.memory_scope_id,
        team_id=parent.team_id,
        abort_signal=signal,
        emit=_forward(parent.emit, description),
        result_budget_chars=budget_chars,
        network_policy=parent.network_policy,
        principal=parent.principal,  # a sub-agent acts for its parent's credential
    )


def _forward(emit: Callable[[Any], None], description: str) -> Callable[[ProgressEvent], None]:
    def forward(event: ProgressEvent) -> None:
        try:
            emit(
                ProgressEvent(
                    tool_name="task",
                    message=f"{description} › {event.tool_name}: {event.message}",
                    percent=None,
                    audience=event.audience,
                )
            )
        except Exception:
            logger.exception("toolwire: the parent's progress emitter failed")

    return forward
