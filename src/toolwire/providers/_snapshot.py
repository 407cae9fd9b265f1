"""`ToolSnapshot`: one iteration's tools, serving both the definitions and the dispatch.

The model may only call what it was shown. `take_snapshot` asks the provider once; the
snapshot then limits the definitions sent to the model *and* gates the model's calls
(``registry.definitions(snapshot=...)`` and ``registry.execute_parallel(..., snapshot=...)``),
so a tool the provider hid this iteration is answered ``not_available`` and never runs — even
when a registry still holds it and its allowlist would let it through (MCP and plugin tools
bypass ``allowed_tools``). `ToolSnapshot.dispatch` does the same around a runner of your own.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from toolwire.calls import CallOutcome, ToolCall
from toolwire.providers._base import (
    ProviderContext,
    ProviderEventHandler,
    ToolProvider,
    ToolShadowed,
    list_tools,
    provider_id,
)
from toolwire.results import Err, ErrorCode, err
from toolwire.tools import Tool

__all__ = ["NOT_OFFERED", "ToolSnapshot", "take_snapshot"]

NOT_OFFERED = "not_offered"
"""``Err.reason`` of a call to a tool that was not in the iteration's snapshot."""

_MAX_LISTED_NAMES = 20

D = TypeVar("D", bound=Mapping[str, Any])


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolSnapshot:
    """The tools of one iteration, immutable, unique by name (first occurrence wins).

    Build it with `take_snapshot` (or `ToolSnapshot.of` for a list you already hold).

    Attributes:
        iteration: The iteration it was taken for.
        tools: The tools, in the provider's order.
        names: Their names.
        dropped: Later tools whose name was already taken (they are neither shown nor run).
        findable: Deferred tools the session has not found yet (`toolwire.tool_search`): a
            call to one is refused naming ``tool_search``.
    """

    iteration: int
    tools: tuple[Tool, ...]
    names: frozenset[str]
    dropped: tuple[Tool, ...] = ()
    findable: frozenset[str] = frozenset()
    _by_name: Mapping[str, Tool] = field(repr=False, compare=False)

    @classmethod
    def of(
        cls,
        tools: Sequence[Tool],
        *,
        iteration: int = 1,
        findable: frozenset[str] = frozenset(),
    ) -> ToolSnapshot:
        """Freeze a list of tools; a repeated name keeps its first tool (``findable``: the deferred
        tools the session may still find with ``tool_search``)."""
        by_name: dict[str, Tool] = {}
        dropped: list[Tool] = []
        for tool in tools:
            if tool.name in by_name:
                dropped.append(tool)
            else:
                by_name[tool.name] = tool
        return cls(
            iteration=iteration,
            tools=tuple(by_name.values()),
            names=frozenset(by_name),
            dropped=tuple(dropped),
            findable=findable - frozenset(by_name),
            _by_name=MappingProxyType(by_name),
        )

    def get(self, name: str) -> Tool | None:
        """The snapshot's tool called ``name``, or ``None``."""
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    def allowed_tools(self) -> list[str]:
        """The names, in order, as a new list: the registry's ``allowed_tools`` argument."""
        return [tool.name for tool in self.tools]

    def definitions(self) -> list[dict[str, Any]]:
        """Neutral definitions ``{"name", "description", "parameters"}`` of the visible tools.

        Tools whose ``is_available()`` returns false (or raises) are left out. The schemas are
        copies; `toolwire.formats` turns these (or the tools) into each API's shape.
        """
        return [
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": copy.deepcopy(dict(tool.schema)),
            }
            for tool in self.tools
            if tool.currently_available()
        ]

    def restrict(self, definitions: Iterable[D]) -> list[D]:
        """Keep only the definitions (mappings with a ``"name"``) of tools in the snapshot.

        Use it on ``registry.definitions(...)``: the registry applies its own gates
        (availability, filters), the snapshot removes what the provider hid — including MCP,
        plugin and ``always_include`` tools, which the registry's ``allowed_tools`` lets through.
        """
        return [d for d in definitions if d.get("name") in self._by_name]

    def refusal(self, name: str) -> Err:
        """The ``not_available`` result for a call to ``name`` outside the snapshot."""
        if name in self.findable:
            return err(
                f"Unknown tool: {name} (not offered: find it with tool_search first; it is "
                "callable from the step after)",
                ErrorCode.NOT_AVAILABLE,
                reason=NOT_OFFERED,
            )
        listed = self.allowed_tools()[:_MAX_LISTED_NAMES]
        more = ", ..." if len(self.tools) > _MAX_LISTED_NAMES else ""
        offered = f"Available tools: {', '.join(listed)}{more}." if listed else "No tools."
        return err(
            f"Unknown tool: {name} (not offered this turn). {offered}",
            ErrorCode.NOT_AVAILABLE,
            reason=NOT_OFFERED,
        )

    def refuse(self, call: ToolCall) -> CallOutcome:
        """The ``not_available`` outcome for a call to a tool outside the snapshot."""
        return CallOutcome(
            tool_call_id=call.id, name=call.name, result=self.refusal(call.name), duration_ms=0.0
        )

    def partition(self, calls: Sequence[ToolCall]) -> tuple[list[ToolCall], dict[int, CallOutcome]]:
        """Split calls into those the snapshot offers and refusals keyed by input index."""
        offered: list[ToolCall] = []
        refused: dict[int, CallOutcome] = {}
        for index, call in enumerate(calls):
            if call.name in self._by_name:
                offered.append(call)
            else:
                refused[index] = self.refuse(call)
        return offered, refused

    async def dispatch(
        self,
        calls: Sequence[ToolCall],
        run: Callable[[list[ToolCall]], Awaitable[Sequence[CallOutcome]]],
    ) -> list[CallOutcome]:
        """Run the offered calls through ``run``; refuse the rest; keep the input order.

        ``run`` is typically ``lambda cs: registry.execute_parallel(cs, ctx,
        allowed_tools=snapshot.allowed_tools())``; it is not called when nothing is offered.

        Raises:
            ValueError: ``run`` returned a different number of outcomes than it was given.
        """
        offered, refused = self.partition(calls)
        ran = list(await run(offered)) if offered else []
        if len(ran) != len(offered):
            raise ValueError(
                f"run() returned {len(ran)} outcomes for {len(offered)} calls; it must "
                "return exactly one outcome per call, in order"
            )
        outcomes = iter(ran)
        return [refused[i] if i in refused else next(outcomes) for i in range(len(calls))]


async def take_snapshot(
    provider: ToolProvider, ctx: ProviderContext, *, on_event: ProviderEventHandler | None = None
) -> ToolSnapshot:
    """List the provider's tools once (see `list_tools`) and freeze them for this iteration.

    A name the provider returned twice keeps its first tool; each dropped duplicate is
    reported to ``on_event`` as `ToolShadowed`.

    Raises:
        ProviderError: Discovery failed; never an empty snapshot in its place.
    """
    snapshot = ToolSnapshot.of(
        await list_tools(provider, ctx, on_event=on_event), iteration=ctx.iteration
    )
    if on_event is not None:
        pid = provider_id(provider)
        for tool in snapshot.dropped:
            on_event(
                ToolShadowed(
                    name=tool.name,
                    kept_provider_id=pid,
                    dropped_provider_id=pid,
                    iteration=ctx.iteration,
                )
            )
    return snapshot
