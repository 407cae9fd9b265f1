"""The seam of the ``subagent`` kind: `ScopedSubagents`, and the values a sub-agent run carries.

The ``task`` tool asks the seam to run a sub-agent on a prompt (`SubagentRequest`) and gets a
`SubagentReport` back: the final answer, or why there is none, with the turns, tool calls,
token usage and cost of the run. The seam is bound to one call (its abort signal, its
backends); the caller's context reaches it as a `ParentContext`, which `ToolContext` is.

Depth travels in the agent id: a sub-agent of an agent at depth ``n`` runs as
``agent_id="depth:<n+1>"`` (`agent_depth`, `depth_agent_id`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from toolwire.capabilities.kinds.network.seam import NetworkPolicy
from toolwire.principals import Principal

__all__ = [
    "MAX_SUBAGENT_TIMEOUT_S",
    "ParentContext",
    "ScopedSubagents",
    "SubagentReport",
    "SubagentRequest",
    "SubagentStop",
    "SubagentToolUse",
    "SubagentUsage",
    "agent_depth",
    "depth_agent_id",
]

SubagentStop: TypeAlias = Literal["final", "max_turns", "timeout", "aborted", "failed"]
"""Why a sub-agent stopped: it answered (``final``), or it ran out of turns or time, was
aborted with its parent, or failed (an endpoint or runner error)."""

MAX_SUBAGENT_TIMEOUT_S = 3600.0
"""The longest a sub-agent may run; the ``task`` tool's own timeout is a minute more."""

_DEPTH = re.compile(r"(?:^|[/:\s,;|])depth:(\d{1,4})$")


def agent_depth(agent_id: str | None) -> int:
    """The delegation depth an agent id carries (``depth:2`` → 2); 0 for any other id.

    A host agent with an id of its own (``planner``) is at depth 0; an id ending in
    ``depth:<n>`` (``planner/depth:1``, ``depth:1``) is at depth ``n``.
    """
    if not agent_id:
        return 0
    match = _DEPTH.search(agent_id)
    return int(match.group(1)) if match else 0


def depth_agent_id(depth: int) -> str:
    """The agent id of a sub-agent at ``depth``: ``depth:<depth>``."""
    return f"depth:{depth}"


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentUsage:
    """Tokens a run used, summed over its model turns (the endpoint's ``usage``)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: SubagentUsage) -> SubagentUsage:
        return SubagentUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )

    def as_dict(self) -> dict[str, int]:
        """``{"prompt_tokens", "completion_tokens", "total_tokens"}``."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentToolUse:
    """One tool call a sub-agent made: the tool, whether it succeeded, the error code if not."""

    name: str
    ok: bool
    code: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentRequest:
    """What the model asked for.

    Attributes:
        description: A short label for the work (progress lines and the report name it).
        prompt: The sub-agent's whole brief: it sees nothing else of the parent's context.
        toolset: One of the seam's `ScopedSubagents.choices`, or ``None`` for all of them.
    """

    description: str
    prompt: str
    toolset: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentReport:
    """How a sub-agent run ended.

    Attributes:
        description: The request's description.
        text: The final answer (``stop == "final"``), or the last text the model wrote.
        stop: Why it stopped.
        error: What went wrong, for any other stop (never holds a secret).
        turns: Model requests made.
        tool_calls: The tool calls it made, in order.
        usage: Tokens used over every turn.
        cost_usd: The cost of those tokens; ``None`` when the price of a model is unknown.
        model: The model that answered (the endpoint's name for it), when known.
        toolset: The toolset it ran with (``None``: every one the host allows).
        depth: Its delegation depth (its agent id is ``depth:<depth>``).
    """

    description: str
    text: str
    stop: SubagentStop
    error: str | None = None
    turns: int = 0
    tool_calls: tuple[SubagentToolUse, ...] = ()
    usage: SubagentUsage = SubagentUsage()
    cost_usd: float | None = None
    model: str | None = None
    toolset: str | None = None
    depth: int = 1

    def structured(self) -> dict[str, Any]:
        """The report as JSON-able data (the ``task`` tool's ``structured`` payload)."""
        return {
            "description": self.description,
            "stop": self.stop,
            "turns": self.turns,
            "tool_calls": [
                {"name": use.name, "ok": use.ok, **({"code": use.code} if use.code else {})}
                for use in self.tool_calls
            ],
            "usage": self.usage.as_dict(),
            "cost_usd": self.cost_usd,
            "model": self.model,
            "toolset": self.toolset,
            "depth": self.depth,
        }


class ParentContext(Protocol):
    """What a sub-agent inherits from its caller's context (`ToolContext` is one)."""

    @property
    def session_id(self) -> str:
        """The parent's session; the sub-agent's session id extends it."""
        ...

    @property
    def session_key(self) -> str:
        """The parent's session key; the sub-agent's key extends it."""
        ...

    @property
    def platform(self) -> str:
        """The surface the turn runs on."""
        ...

    @property
    def working_dir(self) -> str:
        """Where relative paths resolve."""
        ...

    @property
    def agent_id(self) -> str | None:
        """The parent's agent id (its depth: `agent_depth`)."""
        ...

    @property
    def personality_id(self) -> str | None:
        """The active personality; the sub-agent keeps it (and so its reach)."""
        ...

    @property
    def memory_scope(self) -> Literal["global", "per-personality"] | None:
        """The memory scope, kept."""
        ...

    @property
    def memory_scope_id(self) -> str | None:
        """The memory scope id, kept."""
        ...

    @property
    def team_id(self) -> str | None:
        """The team, kept."""
        ...

    @property
    def network_policy(self) -> NetworkPolicy | None:
        """The personality's network policy, kept."""
        ...

    @property
    def principal(self) -> Principal:
        """Whose call it is; the sub-agent's calls are made for the same principal (its
        processes, handles and memory are the parent's credential's, never `LOCAL`'s)."""
        ...

    @property
    def tool_call_id(self) -> str | None:
        """The ``task`` call's id; it names the sub-agent's session."""
        ...

    @property
    def emit(self) -> Callable[[Any], None]:
        """Where the parent's progress events go; the sub-agent's steps are reported there."""
        ...


@runtime_checkable
class ScopedSubagents(Protocol):
    """Runs sub-agents for one call: what ``ctx.seam(SUBAGENT)`` is."""

    @property
    def choices(self) -> tuple[str, ...]:
        """The toolsets a request may name (the host's allowlist)."""
        ...

    @property
    def max_depth(self) -> int:
        """The deepest a sub-agent may run: an agent at this depth may not delegate."""
        ...

    async def run(self, request: SubagentRequest, parent: ParentContext) -> SubagentReport:
        """Run one sub-agent to its end and report; failures are reports, never exceptions.

        Raises:
            ValueError: ``request.toolset`` is not one of `choices`, or ``parent`` is already
                at `max_depth` (the caller checks both first and answers the model).
        """
        ...
