"""`PipelineSettings`: what a registry fixes once for every batch it runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from toolwire.execution.cache import ResultCache
from toolwire.execution.gates import RegisteredTool
from toolwire.execution.hooks import HookRegistry
from toolwire.execution.tracing import PipelineTracer

if TYPE_CHECKING:
    from toolwire.capabilities.resolver import CapabilityBackends
    from toolwire.execution.approvals import Approvals
    from toolwire.execution.effects import Effects
    from toolwire.execution.handles import ResultHandles
    from toolwire.execution.quotas import Quotas
    from toolwire.execution.tasks import Tasks
    from toolwire.reducers._registry import ReducerRegistry

__all__ = ["DEFAULT_TIMEOUT_S", "PipelineSettings", "ToolLookup"]

DEFAULT_TIMEOUT_S = 300.0
"""The per-call timeout for tools that set no ``timeout_s`` of their own."""

ToolLookup: TypeAlias = Callable[[str], RegisteredTool | None]
"""How the pipeline finds a registered tool by name (a registry's ``dict.get``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PipelineSettings:
    """The registry's choices every batch runs under; frozen when the registry is built.

    Attributes:
        backends: Capability backends; ``None`` refuses every tool that declares capabilities.
        reducers: Per-tool result reducers, or ``None`` for none.
        hooks: Observers and before/after handlers.
        default_timeout_s: Timeout for tools without ``timeout_s``; ``None`` for no limit.
        max_concurrency: At most this many calls of a batch run at once (``None``: no limit).
        dry_run_redactor: Applied to every string argument shown in dry-run results.
        result_cache: Where tools that opt in keep their results.
        tracer: Wraps batches and calls in spans (`toolwire.telemetry`); ``None``: no tracing,
            at no cost.
        result_handles: Keep the full text of trimmed results (`toolwire.execution.handles`);
            ``None``: plain trims, at no cost.
        approvals: Where approval tokens live (`toolwire.execution.approvals`); ``None``: in
            the backends' key-value store.
        quotas: Limits checked and reserved before a call runs (`toolwire.execution.quotas`);
            ``None``: no quotas, at no cost.
        effects: Where the effect journal of ``side_effects`` tools lives
            (`toolwire.execution.effects`); ``None``: in the backends' key-value store.
        tasks: Where calls handed off to tasks run and are kept (`toolwire.execution.tasks`);
            ``None``: calls are never handed off.
    """

    backends: CapabilityBackends | None = None
    reducers: ReducerRegistry | None = None
    hooks: HookRegistry = field(default_factory=HookRegistry)
    default_timeout_s: float | None = DEFAULT_TIMEOUT_S
    max_concurrency: int | None = None
    dry_run_redactor: Callable[[str], str] | None = None
    result_cache: ResultCache = field(default_factory=ResultCache)
    tracer: PipelineTracer | None = None
    result_handles: ResultHandles | None = None
    approvals: Approvals | None = None
    quotas: Quotas | None = None
    effects: Effects | None = None
    tasks: Tasks | None = None
