"""`Delegation`: the host's ``subagent`` backend — the runner, what sub-agents may use, limits.

```python
from toolwire import ToolRegistry, create_backends
from toolwire.capabilities.kinds.subagent import ChatCompletionsRunner, Delegation
from toolwire.execution.hooks import HookRegistry
from toolwire.toolbox import command_guard_hook, default_tools

hooks = HookRegistry()
command_guard_hook(hooks)
delegation = Delegation(
    runner=ChatCompletionsRunner(
        base_url="https://api.openai.com/v1", model="gpt-4.1-mini",
        api_key_ref="providers/openai/apiKey",
    ),
    toolsets=("file", "code"),
    hooks=hooks,
)
backends = create_backends(kind_backends={"subagent": delegation})
registry = ToolRegistry(backends, hooks=hooks)
registry.register_all(default_tools())
```

`bind` is what the ``subagent`` kind calls for each ``task`` call; the seam it returns
(`BoundSubagents`) runs one sub-agent per request.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio

from toolwire.capabilities.kinds.secrets.seam import ScopedSecrets
from toolwire.capabilities.kinds.subagent._child import (
    ChildSettings,
    child_context,
    child_registry,
    child_tools,
)
from toolwire.capabilities.kinds.subagent._pricing import ModelPrice
from toolwire.capabilities.kinds.subagent._runner import SubagentJob, SubagentRunner
from toolwire.capabilities.kinds.subagent._runs import DEFAULT_SYSTEM_PROMPT, describe, drive
from toolwire.capabilities.kinds.subagent._tally import SubagentTally
from toolwire.capabilities.kinds.subagent.seam import (
    MAX_SUBAGENT_TIMEOUT_S,
    ParentContext,
    SubagentReport,
    SubagentRequest,
    agent_depth,
)
from toolwire.context import AbortSignal, Audience
from toolwire.errors import ConfigurationError
from toolwire.execution.hooks import HookRegistry
from toolwire.reducers._registry import ReducerRegistry
from toolwire.tools import Tool

if TYPE_CHECKING:
    from toolwire.capabilities.kind import Resolution

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_TURN_BUDGET_CHARS",
    "MAX_TIMEOUT_S",
    "BoundSubagents",
    "Delegation",
    "ToolSource",
]

logger = logging.getLogger("toolwire.capabilities.kinds.subagent")

DEFAULT_MAX_DEPTH = 2
"""Sub-agents of sub-agents, and no deeper: an agent at depth 2 gets no ``task``."""
DEFAULT_MAX_TURNS = 12
DEFAULT_TIMEOUT_S = 600.0
MAX_TIMEOUT_S = MAX_SUBAGENT_TIMEOUT_S
"""The longest a sub-agent may run (the ``task`` tool's own timeout is a minute more)."""
DEFAULT_TURN_BUDGET_CHARS = 40_000
"""The output budget of each batch of the sub-agent's tool calls, split across the batch."""

ToolSource = Iterable[Tool] | Callable[[], Iterable[Tool]]
"""Where a sub-agent's tools come from: tools, or a function returning them when a run starts
(``lambda: registry``, to follow a registry built after the backends)."""


def _check(value: float, name: str, low: float, high: float = math.inf) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        bound = f"between {low:g} and {high:g}" if high != math.inf else f"at least {low:g}"
        raise ConfigurationError(f"Delegation({name}={value!r}) must be a number {bound}")


@dataclass(frozen=True, kw_only=True, slots=True)
class Delegation:
    """The ``subagent`` backend: put it in ``CapabilityBackends.kind_backends["subagent"]``.

    Attributes:
        runner: The agent loop (`ChatCompletionsRunner`, or any `SubagentRunner`).
        toolsets: The toolsets a sub-agent may use; the ``task`` tool's ``toolset`` argument
            picks one of them (omitted: all of them). ``delegation`` here lets sub-agents
            delegate in turn, down to ``max_depth``.
        tools: Where the tools come from (default: `toolwire.toolbox.default_tools`). Only
            tools whose ``toolset`` is allowed ever reach a sub-agent.
        max_depth: The deepest sub-agent: an agent at this depth cannot delegate.
        max_turns: Model requests per sub-agent.
        timeout_s: Wall time per sub-agent (at most `MAX_TIMEOUT_S`).
        turn_budget_chars: The output budget of each of its tool-call batches.
        system_prompt: The sub-agents' system message (``None``: a short default).
        prices: Model → `ModelPrice`, for ``cost_usd``; an unpriced model costs ``None``.
        hooks: Hooks for the child calls (pass the parent registry's to share its guards;
            ``None``: a fresh `HookRegistry` with the command guard).
        reducers: Result reducers for the child calls (``None``: the built-in ones).
        tool_timeout_s: Timeout of child tools without their own.
        max_concurrency: Child calls of one batch run at most this many at once.
        progress_audience: The audience of the sub-agent's progress events.
        on_report: Called with every run's report, answered or not (cost accounting); an
            exception it raises is logged.
    """

    runner: SubagentRunner
    toolsets: tuple[str, ...]
    tools: ToolSource | None = None
    max_depth: int = DEFAULT_MAX_DEPTH
    max_turns: int = DEFAULT_MAX_TURNS
    timeout_s: float = DEFAULT_TIMEOUT_S
    turn_budget_chars: int = DEFAULT_TURN_BUDGET_CHARS
    system_prompt: str | None = None
    prices: Mapping[str, ModelPrice] = field(default_factory=dict)
    hooks: HookRegistry | None = None
    reducers: ReducerRegistry | None = None
    tool_timeout_s: float | None = 300.0
    max_concurrency: int | None = None
    progress_audience: Audience = "user"
    on_report: Callable[[SubagentReport], None] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.runner, SubagentRunner):
            raise ConfigurationError(
                "Delegation(runner=...) takes a SubagentRunner: an object with secret_refs and "
                f"async run(job), such as ChatCompletionsRunner; got {type(self.runner).__name__}"
            )
        if isinstance(self.toolsets, str) or not all(
            isinstance(name, str) and name for name in self.toolsets
        ):
            raise ConfigurationError("Delegation(toolsets=...) takes a list of toolset names")
        object.__setattr__(self, "toolsets", tuple(dict.fromkeys(self.toolsets)))
        if not self.toolsets:
            raise ConfigurationError("Delegation(toolsets=...) must allow at least one toolset")
        _check(self.max_depth, "max_depth", 1, 16)
        _check(self.max_turns, "max_turns", 1, 1000)
        _check(self.timeout_s, "timeout_s", 0.001, MAX_TIMEOUT_S)
        _check(self.turn_budget_chars, "turn_budget_chars", 1)
        if self.progress_audience not in ("internal", "user", "dashboard"):
            raise ConfigurationError(
                "Delegation(progress_audience=...) must be 'internal', 'user' or 'dashboard'"
            )
        self.child_settings()  # type-checks hooks and reducers now, not at the first call

    def child_settings(self) -> ChildSettings:
        """How child registries are built.

        Raises:
            ConfigurationError: ``hooks`` or ``reducers`` of the wrong type.
        """
        if self.hooks is not None and not isinstance(self.hooks, HookRegistry):
            raise ConfigurationError("Delegation(hooks=...) takes a HookRegistry")
        if self.reducers is not None and not isinstance(self.reducers, ReducerRegistry):
            raise ConfigurationError("Delegation(reducers=...) takes a ReducerRegistry")
        return ChildSettings(
            hooks=self.hooks,
            reducers=self.reducers,
            default_timeout_s=self.tool_timeout_s,
            max_concurrency=self.max_concurrency,
        )

    def available_tools(self) -> list[Tool]:
        """The tools sub-agents choose from, as the source gives them now."""
        source = self.tools
        if source is None:
            from toolwire.toolbox import default_tools

            return default_tools()
        if callable(source):
            source = source()
        return [item for item in source if isinstance(item, Tool)]

    def bind(self, call: Resolution) -> BoundSubagents:
        """The seam for one ``task`` call (what the ``subagent`` kind resolves)."""
        return BoundSubagents(self, call)


class BoundSubagents:
    """Runs sub-agents for one call (a `ScopedSubagents`).

    Args:
        delegation: The host's settings.
        call: The call being resolved (its abort signal, backends and secrets).
    """

    __slots__ = ("_call", "_delegation")

    def __init__(self, delegation: Delegation, call: Resolution) -> None:
        self._delegation = delegation
        self._call = call

    @property
    def choices(self) -> tuple[str, ...]:
        """The toolsets the host allows sub-agents."""
        return self._delegation.toolsets

    @property
    def max_depth(self) -> int:
        """The deepest a sub-agent may run."""
        return self._delegation.max_depth

    async def run(self, request: SubagentRequest, parent: ParentContext) -> SubagentReport:
        """Run one sub-agent for ``request`` as a child of ``parent`` and report how it ended.

        Raises:
            ValueError: the toolset is not one of `choices`, or ``parent`` is at `max_depth`.
        """
        settings = self._delegation
        if request.toolset is not None and request.toolset not in settings.toolsets:
            raise ValueError(f"toolset {request.toolset!r} is not one of {settings.toolsets}")
        depth = agent_depth(parent.agent_id) + 1
        if depth > settings.max_depth:
            raise ValueError(f"an agent at depth {depth - 1} may not delegate")
        tally = SubagentTally(
            description=request.description,
            max_turns=settings.max_turns,
            prices=settings.prices,
            emit=parent.emit,
            toolset=request.toolset,
            depth=depth,
            audience=settings.progress_audience,
        )
        signal = AbortSignal()
        try:
            job = self._job(request, parent, depth, signal, tally)
        except Exception as exc:
            logger.warning("toolwire: could not prepare a sub-agent", exc_info=True)
            error = f"the sub-agent could not be prepared: {describe(exc)}"
            report = tally.report(stop="failed", text="", error=error)
        else:
            scope = f"toolset {request.toolset}" if request.toolset else "every allowed toolset"
            tally.say(f"started at depth {depth} with {scope}")
            report = await self._drive(job, signal)
        _notify(settings, report)
        return report

    async def _drive(self, job: SubagentJob, signal: AbortSignal) -> SubagentReport:
        """`drive` the runner; the report, also when the parent's call is cancelled under it."""
        settings, tally = self._delegation, job.tally
        parent_signal = self._call.scope.abort_signal
        try:
            bare = await drive(settings.runner, job, signal, parent_signal, settings.timeout_s)
        except anyio.get_cancelled_exc_class():  # the parent's call itself was cancelled
            reason = parent_signal.reason if parent_signal is not None else None
            error = f"aborted: {reason or 'the task call was cancelled'}"
            _notify(settings, tally.report(stop="aborted", text=tally.last_text, error=error))
            raise
        return tally.report(stop=bare.stop, text=bare.text, error=bare.error)

    def _job(
        self,
        request: SubagentRequest,
        parent: ParentContext,
        depth: int,
        signal: AbortSignal,
        tally: SubagentTally,
    ) -> SubagentJob:
        settings = self._delegation
        toolsets = settings.toolsets if request.toolset is None else (request.toolset,)
        tools = child_tools(
            settings.available_tools(), toolsets, may_delegate=depth < settings.max_depth
        )
        registry = child_registry(tools, self._call.backends, settings.child_settings())
        context = child_context(
            parent,
            depth=depth,
            signal=signal,
            budget_chars=settings.turn_budget_chars,
            description=request.description,
        )
        return SubagentJob(
            description=request.description,
            prompt=request.prompt,
            system_prompt=settings.system_prompt or DEFAULT_SYSTEM_PROMPT,
            registry=registry,
            context=context,
            max_turns=settings.max_turns,
            tally=tally,
            secrets=self._secrets(settings.runner),
        )

    def _secrets(self, runner: SubagentRunner) -> ScopedSecrets | None:
        refs = tuple(runner.secret_refs)
        resolver = self._call.backends.secrets_resolver
        if not refs or resolver is None:
            return None
        from toolwire.capabilities.kinds.secrets._resolvers import DeclaredSecrets

        return DeclaredSecrets(refs, resolver)


def _notify(settings: Delegation, report: SubagentReport) -> None:
    if settings.on_report is None:
        return
    try:
        settings.on_report(report)
    except Exception:
        logger.exception("toolwire: Delegation.on_report failed")
