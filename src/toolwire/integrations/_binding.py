"""`ToolBinding`: what every framework adapter shares, framework-free.

An adapter turns toolwire tools into a framework's tools. Whatever the framework, the same
four things must survive the trip, and they live here:

- **definitions**: each tool's name, description and JSON Schema, in its strict form where that
  keeps its meaning (`toolwire.formats._strict`), in the registry's order and gates;
- **the batch**: the calls of one model response run through one ``execute_parallel`` (see
  `toolwire.integrations._gathering`), so the output budget is split across them;
- **the context**: a `ToolContext` for the run (session, turn, message count), with the
  session's STALE_WRITE read records kept between turns;
- **presenting**: every outcome goes through a `Presenter` (redaction, the ingestion cap,
  untrusted wrapping, result frames) before the model reads it;
- **tool search**: with deferred tools (`toolwire.tool_search`) and no provider, a step's
  snapshot is the session's (the undeferred tools and what it found), and the calls run
  against the session's snapshot, so a deferred tool it never found answers ``not_offered``.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities.seams import ReadRecord
from toolwire.context import DEFAULT_RESULT_BUDGET_CHARS, ToolContext
from toolwire.errors import ConfigurationError
from toolwire.formats._common import copy_schema
from toolwire.formats._strict import strict_schema
from toolwire.integrations._gathering import DEFAULT_SETTLE_TICKS, CallGatherer, SubmitOptions
from toolwire.presenting import PresentedResult, Presenter, PresenterOptions
from toolwire.principals import LOCAL, Principal
from toolwire.providers._base import ProviderContext, ToolProvider
from toolwire.providers._snapshot import ToolSnapshot, take_snapshot
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.tools import Tool

__all__ = ["BoundOutcome", "BoundTool", "ToolBinding"]

_SESSIONS_KEPT = 256


@dataclass(frozen=True, kw_only=True, slots=True)
class BoundTool:
    """One tool as a framework shows it to the model.

    Attributes:
        tool: The toolwire tool.
        parameters: The JSON Schema to send (a fresh copy; strict form when ``strict``).
        strict: Whether ``parameters`` is the strict form.
    """

    tool: Tool
    parameters: dict[str, Any]
    strict: bool

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.tool.name

    @property
    def description(self) -> str:
        """The tool's description."""
        return self.tool.description


@dataclass(frozen=True, kw_only=True, slots=True)
class BoundOutcome:
    """A call's outcome and what the model reads of it.

    Attributes:
        outcome: The registry's outcome.
        presented: The presenter's text and flags.
    """

    outcome: CallOutcome
    presented: PresentedResult

    @property
    def text(self) -> str:
        """The model-facing text."""
        return self.presented.text

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return isinstance(self.outcome.result, Ok)

    @property
    def code(self) -> ErrorCode | None:
        """The error code of a failed call, ``None`` on success."""
        result = self.outcome.result
        return None if isinstance(result, Ok) else result.code


class ToolBinding:
    """A registry bound for use inside an agent framework.

    Args:
        registry: Runs the calls (its pipeline, hooks, backends and reducers).
        provider: Chooses the tools the model sees each step (a `ToolProvider` whose tools
            the registry holds); the registry's available tools when ``None``.
        presenter: Turns outcomes into the model's text; by default one whose ingestion cap
            is ``result_budget_chars``.
        result_budget_chars: The per-response output budget of contexts the binding makes.
        working_dir: The working directory of contexts the binding makes (the process's
            current directory by default).
        strict: ``None`` sends a tool's schema in strict form when that keeps its meaning,
            ``False`` never, ``True`` always (a tool that cannot be strict is refused).
        settle_ticks: See `CallGatherer`.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        provider: ToolProvider | None = None,
        presenter: Presenter | None = None,
        result_budget_chars: int = DEFAULT_RESULT_BUDGET_CHARS,
        working_dir: str | None = None,
        strict: bool | None = None,
        settle_ticks: int = DEFAULT_SETTLE_TICKS,
    ) -> None:
        if not isinstance(registry, ToolRegistry):
            raise ConfigurationError(
                f"a toolwire adapter takes a ToolRegistry, got {type(registry).__name__}; "
                "put the tools in a registry (ToolRegistry().register_all(tools)) and pass "
                "a provider= to choose which of them the model sees"
            )
        if result_budget_chars < 1:
            raise ConfigurationError(f"result_budget_chars must be >= 1, got {result_budget_chars}")
        self.registry = registry
        self.provider = provider
        self.presenter = presenter or Presenter(
            PresenterOptions(ingestion_cap_chars=result_budget_chars)
        )
        self.result_budget_chars = result_budget_chars
        self.working_dir = os.path.abspath(working_dir) if working_dir else None
        self.strict = strict
        self._records: OrderedDict[str, dict[str, ReadRecord]] = OrderedDict()
        self._gatherer = CallGatherer(self._run_batch, settle_ticks=settle_ticks)

    # -- what the model sees ---------------------------------------------------------------

    @property
    def searching(self) -> bool:
        """Whether the session's found tools decide what is offered: the registry defers
        tools and no provider chooses them."""
        return self.provider is None and bool(self.registry.deferred_names)

    async def snapshot(
        self, *, iteration: int, session_id: str, principal: Principal = LOCAL
    ) -> ToolSnapshot | None:
        """This step's snapshot of the provider's tools (with deferred tools and no provider,
        the session's: `toolwire.tool_search.ToolSearch.snapshot`), else ``None``."""
        ctx = ProviderContext(iteration=max(iteration, 1), session_id=session_id)
        if self.provider is None:
            if not self.searching:
                return None
            taken: ToolSnapshot = await self.registry.tool_search.snapshot(ctx, principal=principal)
            return taken
        return await take_snapshot(self.provider, ctx)

    def deferred_tools(self) -> list[BoundTool]:
        """The deferred tools (what a framework that fixes its tools up front must also hold,
        to run the ones a session finds), in registry order."""
        deferred = self.registry.deferred_names
        return [self.bind(t) for t in self.registry.available() if t.name in deferred]

    async def found(self, session_id: str, principal: Principal = LOCAL) -> frozenset[str]:
        """The deferred tools the session has found (none without tool search)."""
        if not self.searching:
            return frozenset()
        names: frozenset[str] = await self.registry.tool_search.found.get(session_id, principal)
        return names

    def tools(self, snapshot: ToolSnapshot | None = None) -> list[BoundTool]:
        """The tools to show the model: the registry's definitions (its gates and order),
        limited to ``snapshot`` when given.

        Raises:
            ConfigurationError: the snapshot names a tool the registry does not hold, or
                ``strict=True`` and a tool's schema cannot be strict.
        """
        if snapshot is not None:
            missing = [t.name for t in snapshot if t.name not in self.registry]
            if missing:
                raise ConfigurationError(
                    f"the provider offers tools the registry does not hold: {missing}; "
                    "register them (registry.register_all(...)) so their calls can run"
                )
        bound: list[BoundTool] = []
        for definition in self.registry.definitions(snapshot=snapshot):
            tool = self.registry.get(definition["name"])
            if tool is not None:
                bound.append(self.bind(tool))
        return bound

    def bind(self, tool: Tool) -> BoundTool:
        """``tool``'s parameters for the model, strict where allowed (see ``strict``)."""
        if self.strict is not False:
            parameters, reason = strict_schema(tool.schema, dialect="openai")
            if parameters is not None:
                return BoundTool(tool=tool, parameters=parameters, strict=True)
            if self.strict:
                raise ConfigurationError(f"tool {tool.name!r} cannot be strict: {reason}")
        return BoundTool(tool=tool, parameters=copy_schema(tool.schema), strict=False)

    # -- the context -----------------------------------------------------------------------

    def context(
        self,
        base: ToolContext | None,
        *,
        session_id: str,
        platform: str,
        current_turn: int | None = None,
        message_count: int | None = None,
    ) -> ToolContext:
        """The context for one step of a run.

        ``base`` (the user's) keeps its session and settings; without one, a context for
        ``session_id`` is made with the binding's budget and working directory. The run's
        turn and message count are set when known, and the session's read records (kept by
        the binding between steps) replace ``read_mtimes`` unless the base disabled them.
        """
        if base is None:
            base = ToolContext(
                session_id=session_id or "default",
                platform=platform,
                working_dir=self.working_dir or os.getcwd(),
                result_budget_chars=self.result_budget_chars,
            )
        changes: dict[str, Any] = {}
        if current_turn is not None:
            changes["current_turn"] = max(current_turn, 1)
        if message_count is not None:
            changes["message_count"] = max(message_count, 0)
        if base.read_mtimes is not None:
            changes["read_mtimes"] = self.read_records(base.session_id)
        return base.derive(**changes) if changes else base

    def read_records(self, session_id: str) -> dict[str, ReadRecord]:
        """The STALE_WRITE read records of a session (the newest few hundred are kept)."""
        records = self._records.get(session_id)
        if records is None:
            records = self._records[session_id] = {}
            while len(self._records) > _SESSIONS_KEPT:
                self._records.popitem(last=False)
        else:
            self._records.move_to_end(session_id)
        return records

    # -- running ---------------------------------------------------------------------------

    async def call(
        self, key: Hashable, call: ToolCall, ctx: ToolContext, **options: Unpack[SubmitOptions]
    ) -> BoundOutcome:
        """Run ``call`` in the batch of the response ``key`` and present its outcome.

        See `CallGatherer.submit` for ``key`` and the ``options`` (``expected``, ``share_of``,
        ``linger``).
        """
        outcome = await self._gatherer.submit(key, call, ctx, **options)
        return self.present(
            outcome, ctx, args=outcome.args if outcome.args is not None else call.args
        )

    async def call_approved(
        self, call: ToolCall, ctx: ToolContext, approvals: Sequence[str]
    ) -> BoundOutcome:
        """Run ``call`` again, alone, with the approval tokens a human gave (the call a framework's
        own approval flow sends back; a paused ``run_code`` program resumes) and present its
        outcome."""
        snapshot = None
        if self.searching:
            snapshot = await self.snapshot(
                iteration=ctx.current_turn, session_id=ctx.session_id, principal=ctx.principal
            )
        outcomes = await self.registry.execute_parallel(
            [call], ctx, snapshot=snapshot, approvals=list(approvals)
        )
        return self.present(outcomes[0], ctx, args=call.args)

    def present(
        self, outcome: CallOutcome, ctx: ToolContext, *, args: str | Mapping[str, Any] | None
    ) -> BoundOutcome:
        """Present one outcome (the tool is looked up in the registry)."""
        presented = self.presenter.present(
            outcome, self.registry.get(outcome.name), args=args, emit=ctx.emit
        )
        return BoundOutcome(outcome=outcome, presented=presented)

    async def _run_batch(self, calls: Sequence[ToolCall], ctx: ToolContext) -> list[CallOutcome]:
        snapshot = None
        if self.searching:  # a deferred tool runs only once the session has found it
            snapshot = await self.snapshot(
                iteration=ctx.current_turn, session_id=ctx.session_id, principal=ctx.principal
            )
        return await self.registry.execute_parallel(calls, ctx, snapshot=snapshot)
