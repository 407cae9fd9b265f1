"""A registry's settings: its keywords checked and turned into `PipelineSettings`, read back by
`SettingsView` (a base of `toolwire.registry.ToolRegistry`), and the pipeline built from them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from toolwire.errors import RegistrationError
from toolwire.execution.cache import ResultCache
from toolwire.execution.gates import RegisteredTool
from toolwire.execution.hooks import HookRegistry
from toolwire.execution.pipeline import Pipeline
from toolwire.execution.settings import PipelineSettings
from toolwire.execution.tasks import Tasks
from toolwire.execution.tracing import BatchRunner, PipelineTracer

if TYPE_CHECKING:
    from toolwire.capabilities.resolver import CapabilityBackends
    from toolwire.execution.approvals import Approvals
    from toolwire.execution.effects import Effects
    from toolwire.execution.handles import ResultHandles
    from toolwire.execution.quotas import Quotas
    from toolwire.reducers.registry import ReducerRegistry

__all__ = ["DEFAULT", "SettingsView", "check_options", "pipeline_settings", "redact_known_secrets"]

DEFAULT: Any = object()
"""The default of keywords whose ``None`` means "none" (``reducers``, ``dry_run_redactor``)."""


def check_options(
    max_concurrency: int | None,
    default_timeout_s: float | None,
    definition_order: str,
    provider_id: str,
) -> None:
    """Refuse a keyword out of range.

    Raises:
        RegistrationError: naming the keyword and what it takes.
    """
    if max_concurrency is not None and max_concurrency < 1:
        raise RegistrationError(f"max_concurrency must be >= 1 or None, got {max_concurrency}")
    if default_timeout_s is not None and not default_timeout_s > 0:
        raise RegistrationError(
            f"default_timeout_s must be positive or None, got {default_timeout_s}"
        )
    if definition_order not in ("registration", "sorted"):
        raise RegistrationError("definition_order must be 'registration' or 'sorted'")
    if not isinstance(provider_id, str) or not provider_id:
        raise RegistrationError(f"provider_id must be a non-empty string, got {provider_id!r}")


def pipeline_settings(
    *,
    reducers: ReducerRegistry | None,
    dry_run_redactor: Callable[[str], str] | None,
    hooks: HookRegistry | None,
    result_cache: ResultCache | None,
    tasks: Tasks | None,
    backends: CapabilityBackends | None,
    default_timeout_s: float | None,
    max_concurrency: int | None,
    telemetry: PipelineTracer | None,
    result_handles: ResultHandles | None,
    approvals: Approvals | None,
    quotas: Quotas | None,
    effects: Effects | None,
) -> PipelineSettings:
    """The settings of a registry's keywords, defaults filled in: the built-in reducers and
    the secret redactor for `DEFAULT`, and a fresh hook registry, result cache and task store
    for ``None``; the others pass as they are."""
    if reducers is DEFAULT:
        from toolwire.reducers.defaults import default_reducers

        reducers = default_reducers()
    return PipelineSettings(
        reducers=reducers,
        dry_run_redactor=redact_known_secrets if dry_run_redactor is DEFAULT else dry_run_redactor,
        hooks=hooks if hooks is not None else HookRegistry(),
        result_cache=result_cache if result_cache is not None else ResultCache(),
        tasks=tasks if tasks is not None else Tasks(),
        backends=backends,
        default_timeout_s=default_timeout_s,
        max_concurrency=max_concurrency,
        tracer=telemetry,
        result_handles=result_handles,
        approvals=approvals,
        quotas=quotas,
        effects=effects,
    )


def redact_known_secrets(text: str) -> str:
    """The default dry-run redactor: known key formats → ``[REDACTED:<kind>]``."""
    from toolwire.safety.redaction import redact_secrets

    return redact_secrets(text).text


class SettingsView:
    """The settings a registry fixes at construction, read back, and the pipeline built from
    them (`toolwire.registry.ToolRegistry` sets ``_settings``, ``_entries`` and
    ``_definition_order``, then calls `_build_pipeline`)."""

    _settings: PipelineSettings
    _entries: dict[str, RegisteredTool]
    _definition_order: Literal["registration", "sorted"]
    _pipeline: Pipeline
    _run_batch: BatchRunner

    def _build_pipeline(self) -> None:
        """Build the pipeline and the runner `execute_parallel` calls: the pipeline's own, or
        the tracer's wrapper around it (chosen here, once, so no tracer costs no check per
        batch)."""
        pipeline = Pipeline(self._settings, self._entries.get)
        tracer = self._settings.tracer
        self._pipeline = pipeline
        if tracer is None:
            self._run_batch = pipeline.run_batch
        else:
            self._run_batch = tracer.trace_batches(pipeline.run_batch)

    # -- settings (fixed at construction) -----------------------------------------------------

    @property
    def settings(self) -> PipelineSettings:
        """The frozen settings every batch runs under."""
        return self._settings

    @property
    def backends(self) -> CapabilityBackends | None:
        """The capability backends."""
        return self._settings.backends

    @property
    def reducers(self) -> ReducerRegistry | None:
        """The per-tool result reducers."""
        return self._settings.reducers

    @property
    def hooks(self) -> HookRegistry:
        """Observers and before/after handlers; add to it at any time."""
        return self._settings.hooks

    @property
    def default_timeout_s(self) -> float | None:
        """The timeout of tools without ``timeout_s``."""
        return self._settings.default_timeout_s

    @property
    def max_concurrency(self) -> int | None:
        """How many calls of a batch may run at once."""
        return self._settings.max_concurrency

    @property
    def telemetry(self) -> PipelineTracer | None:
        """What traces batches and calls (`toolwire.telemetry`), if anything."""
        return self._settings.tracer

    def use_telemetry(self, telemetry: PipelineTracer | None) -> None:
        """Trace the batches and calls that start from now on with ``telemetry`` (``None``:
        stop). `toolwire.telemetry.instrument` is the usual way to call it. Batches already
        running finish as they started."""
        self._settings = replace(self._settings, tracer=telemetry)
        self._build_pipeline()

    @property
    def definition_order(self) -> Literal["registration", "sorted"]:
        """The order of `definitions`."""
        return self._definition_order

    @property
    def dry_run_redactor(self) -> Callable[[str], str] | None:
        """What dry-run results pass string arguments through."""
        return self._settings.dry_run_redactor

    @property
    def tasks(self) -> Tasks:
        """The calls handed off to tasks: get, wait for, cancel (`toolwire.execution.tasks`)."""
        tasks = self._settings.tasks
        assert tasks is not None  # the registry always has one
        return tasks

    @property
    def result_cache(self) -> ResultCache:
        """The results of tools with ``cache=``."""
        return self._settings.result_cache
