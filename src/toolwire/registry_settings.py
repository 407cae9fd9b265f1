"""`RegistrySettings`: what a registry is built with, as one value; resolved into the
`PipelineSettings` its batches run under and read back by `SettingsView` (a base of
`toolwire.registry.ToolRegistry`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.errors import RegistrationError
from toolwire.execution.approvals import Approvals
from toolwire.execution.cache import ResultCache
from toolwire.execution.effects import Effects
from toolwire.execution.gates import RegisteredTool
from toolwire.execution.handles import ResultHandles
from toolwire.execution.hooks import HookRegistry
from toolwire.execution.pipeline import Pipeline
from toolwire.execution.quotas import Quotas
from toolwire.execution.settings import DEFAULT_TIMEOUT_S, PipelineSettings
from toolwire.execution.tasks import Tasks
from toolwire.execution.tracing import BatchRunner, PipelineTracer
from toolwire.reducers._registry import ReducerRegistry

__all__ = [
    "DEFAULT",
    "RegistryOptions",
    "RegistrySettings",
    "SettingsView",
    "redact_known_secrets",
    "resolve_settings",
]


class _Default:
    """The type of `DEFAULT` (one instance; its repr reads as the name)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()
"""The default of settings whose ``None`` means "none" (``reducers``, ``dry_run_redactor``):
the built-in reducers and the secret redactor."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RegistrySettings:
    """How a `toolwire.registry.ToolRegistry` runs its batches, as one frozen value.

    ``ToolRegistry(backends, settings=RegistrySettings(max_concurrency=8))``; derive one with
    `dataclasses.replace`. The same names are keywords of `ToolRegistry` too (each overrides
    the field of ``settings``): they read better for a one-off registry, and a few hundred
    call sites in the tests and docs use them, so they stay supported, not deprecated.

    The collaborators (reducers, hooks, cache, telemetry, handles, approvals, quotas, effects,
    tasks) are fields of this value, not a second one: they are objects the registry *uses*,
    chosen by whoever builds it, exactly like the numbers. What must be the registry's own —
    the hook registry, the result cache and the task store, which hold per-registry state —
    default to ``None``, "a fresh one for each registry", so one value with the defaults can
    build any number of independent registries; passing an instance shares it on purpose.
    ``registry.settings`` is the value resolved (every ``DEFAULT`` and ``None`` above replaced
    by what the registry made), so ``registry.settings.hooks`` is its live hook registry; a
    sibling built from it shares those three unless they are ``replace``-d with ``None``.

    Attributes:
        default_timeout_s: Timeout for tools without ``timeout_s``; ``None`` for no limit.
        max_concurrency: At most this many calls of a batch run at once (``None``: no limit).
        definition_order: ``"registration"`` (the default) or ``"sorted"`` by name, which keeps
            a prompt prefix byte-stable whatever the registration order.
        provider_id: The registry's ``id`` as a tool provider.
        dry_run_redactor: Applied to every string argument shown in dry-run results; the
            secret redactor of `toolwire.safety` by default, ``None`` for none.
        reducers: Per-tool result reducers; the built-in reducers by default, ``None`` for none.
        hooks: Observers and before/after handlers; ``None``: a fresh `HookRegistry`.
        result_cache: Where tools with ``cache=`` keep results; ``None``: a fresh one.
        telemetry: Spans and metrics for every batch and call, e.g.
            ``toolwire.telemetry.ToolTelemetry()``; ``None``: none, at no cost.
        result_handles: Keep the full text of trimmed results behind a handle ``read_result``
            pages through (`toolwire.execution.handles.ResultHandles`; needs a key-value
            backend); ``None``: plain trims.
        approvals: Where the approval tokens of ``requires_approval`` tools live
            (`toolwire.execution.approvals.Approvals`); ``None``: the backends' key-value store.
        quotas: Limits checked and reserved before each call runs
            (`toolwire.execution.quotas.Quotas`); ``None``: none, at no cost.
        effects: Where the effect journal of ``side_effects`` tools lives
            (`toolwire.execution.effects.Effects`); ``None``: the backends' key-value store.
        tasks: Where calls handed off to tasks run and are kept (`toolwire.execution.tasks`);
            ``None``: a fresh one on the backends' store.

    Raises:
        RegistrationError: a number out of range, an unknown order or an empty provider id
            (the message names the field and what it takes).
    """

    default_timeout_s: float | None = DEFAULT_TIMEOUT_S
    max_concurrency: int | None = None
    definition_order: Literal["registration", "sorted"] = "registration"
    provider_id: str = "registry"
    dry_run_redactor: Callable[[str], str] | None = DEFAULT
    reducers: ReducerRegistry | None = DEFAULT
    hooks: HookRegistry | None = None
    result_cache: ResultCache | None = None
    telemetry: PipelineTracer | None = None
    result_handles: ResultHandles | None = None
    approvals: Approvals | None = None
    quotas: Quotas | None = None
    effects: Effects | None = None
    tasks: Tasks | None = None

    def __post_init__(self) -> None:
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise RegistrationError(
                f"max_concurrency must be >= 1 or None, got {self.max_concurrency}"
            )
        timeout = self.default_timeout_s
        if timeout is not None and not timeout > 0:
            raise RegistrationError(f"default_timeout_s must be positive or None, got {timeout}")
        if self.definition_order not in ("registration", "sorted"):
            raise RegistrationError("definition_order must be 'registration' or 'sorted'")
        if not isinstance(self.provider_id, str) or not self.provider_id:
            raise RegistrationError(
                f"provider_id must be a non-empty string, got {self.provider_id!r}"
            )


class RegistryOptions(TypedDict, total=False):
    """`ToolRegistry`'s keywords: any field of `RegistrySettings`, overriding ``settings``."""

    default_timeout_s: float | None
    max_concurrency: int | None
    definition_order: Literal["registration", "sorted"]
    provider_id: str
    dry_run_redactor: Callable[[str], str] | None
    reducers: ReducerRegistry | None
    hooks: HookRegistry | None
    result_cache: ResultCache | None
    telemetry: PipelineTracer | None
    result_handles: ResultHandles | None
    approvals: Approvals | None
    quotas: Quotas | None
    effects: Effects | None
    tasks: Tasks | None


def resolve_settings(
    settings: RegistrySettings, backends: CapabilityBackends | None
) -> tuple[RegistrySettings, PipelineSettings]:
    """``settings`` with its defaults made (the built-in reducers and the secret redactor for
    `DEFAULT`; a fresh hook registry, result cache and task store for ``None``), and the
    pipeline settings of that value over ``backends``."""
    reducers = settings.reducers
    if reducers is DEFAULT:
        from toolwire.reducers._defaults import default_reducers

        reducers = default_reducers()
    redactor = settings.dry_run_redactor
    resolved = replace(
        settings,
        reducers=reducers,
        dry_run_redactor=redact_known_secrets if redactor is DEFAULT else redactor,
        hooks=settings.hooks if settings.hooks is not None else HookRegistry(),
        result_cache=settings.result_cache if settings.result_cache is not None else ResultCache(),
        tasks=settings.tasks if settings.tasks is not None else Tasks(),
    )
    return resolved, _pipeline_settings(resolved, backends)


def _pipeline_settings(
    settings: RegistrySettings, backends: CapabilityBackends | None
) -> PipelineSettings:
    assert settings.hooks is not None  # resolved
    assert settings.result_cache is not None
    return PipelineSettings(
        backends=backends,
        reducers=settings.reducers,
        hooks=settings.hooks,
        default_timeout_s=settings.default_timeout_s,
        max_concurrency=settings.max_concurrency,
        dry_run_redactor=settings.dry_run_redactor,
        result_cache=settings.result_cache,
        tracer=settings.telemetry,
        result_handles=settings.result_handles,
        approvals=settings.approvals,
        quotas=settings.quotas,
        effects=settings.effects,
        tasks=settings.tasks,
    )


def redact_known_secrets(text: str) -> str:
    """The default dry-run redactor: known key formats → ``[REDACTED:<kind>]``."""
    from toolwire.safety._redaction import redact_secrets

    return redact_secrets(text).text


class SettingsView:
    """A registry's settings read back, and the pipeline built from them
    (`toolwire.registry.ToolRegistry` sets ``_settings``, ``_backends`` and ``_entries``, then
    calls `_build_pipeline`). The settings themselves are read as ``registry.settings.x``; the
    properties here are the registry's own parts: its backends, hooks and tasks."""

    _settings: RegistrySettings
    _backends: CapabilityBackends | None
    _entries: dict[str, RegisteredTool]
    _pipeline: Pipeline
    _run_batch: BatchRunner

    def _build_pipeline(self, pipeline_settings: PipelineSettings) -> None:
        """Build the pipeline and the runner `execute_parallel` calls: the pipeline's own, or
        the tracer's wrapper around it (chosen here, once, so no tracer costs no check per
        batch)."""
        pipeline = Pipeline(pipeline_settings, self._entries.get)
        tracer = pipeline_settings.tracer
        self._pipeline = pipeline
        if tracer is None:
            self._run_batch = pipeline.run_batch
        else:
            self._run_batch = tracer.trace_batches(pipeline.run_batch)

    @property
    def settings(self) -> RegistrySettings:
        """The settings every batch runs under, resolved: the registry's own hook registry,
        result cache and task store, the reducers and redactor it uses, its telemetry."""
        return self._settings

    @property
    def backends(self) -> CapabilityBackends | None:
        """The capability backends (the registry's first argument)."""
        return self._backends

    @property
    def hooks(self) -> HookRegistry:
        """Observers and before/after handlers; add to it at any time."""
        hooks = self._settings.hooks
        assert hooks is not None  # resolved: the registry always has one
        return hooks

    @property
    def tasks(self) -> Tasks:
        """The calls handed off to tasks: get, wait for, cancel (`toolwire.execution.tasks`)."""
        tasks = self._settings.tasks
        assert tasks is not None  # resolved: the registry always has one
        return tasks

    def use_telemetry(self, telemetry: PipelineTracer | None) -> None:
        """Trace the batches and calls that start from now on with ``telemetry`` (``None``:
        stop). `toolwire.telemetry.instrument` is the usual way to call it. Batches already
        running finish as they started."""
        self._settings = replace(self._settings, telemetry=telemetry)
        self._build_pipeline(replace(self._pipeline.settings, tracer=telemetry))
