"""`SubagentTally`: what one sub-agent run did so far, reported as progress as it happens.

A runner tells the tally each step (`model_turn` after every model response, `tool_results`
after every batch of tool calls); the tally keeps the turns, tool calls, usage and cost, and
reports each step to the parent's progress emitter. Whatever stops the run (its answer, its
turn limit, a timeout, an abort), the report is built from the tally, so a run cut short still
says what it did and what it cost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from toolwire.calls import CallOutcome
from toolwire.capabilities.kinds.subagent._pricing import PriceTable, cost_of
from toolwire.capabilities.kinds.subagent.seam import (
    SubagentReport,
    SubagentStop,
    SubagentToolUse,
    SubagentUsage,
)
from toolwire.context import Audience, ProgressEvent
from toolwire.results import Err

__all__ = ["SubagentTally"]

logger = logging.getLogger("toolwire.capabilities.kinds.subagent")

_MAX_NAMES_SHOWN = 5


class SubagentTally:
    """The running record of one sub-agent; runners call `model_turn` and `tool_results`.

    Args:
        description: The request's label; every progress line starts with it.
        max_turns: The run's turn limit (progress shows ``turn n/max``).
        prices: The price table `cost_of` reads.
        emit: The parent's progress emitter (``ctx.emit``).
        toolset: The toolset the run uses (``None``: every allowed one), for the report.
        depth: The run's delegation depth, for the report.
        tool_name: The tool the progress events are attributed to.
        audience: The audience of the progress events.
    """

    def __init__(
        self,
        *,
        description: str,
        max_turns: int,
        prices: PriceTable,
        emit: Callable[[Any], None],
        toolset: str | None = None,
        depth: int = 1,
        tool_name: str = "task",
        audience: Audience = "user",
    ) -> None:
        self.description = description
        self.toolset = toolset
        self.depth = depth
        self.max_turns = max_turns
        self.turns = 0
        self.usage = SubagentUsage()
        self.tool_uses: list[SubagentToolUse] = []
        self.last_text = ""
        self.model: str | None = None
        self._prices = prices
        self._cost: float | None = 0.0
        self._emit = emit
        self._tool_name = tool_name
        self._audience: Audience = audience

    @property
    def cost_usd(self) -> float | None:
        """The cost so far; ``None`` once any turn's cost was unknown."""
        return self._cost

    def say(self, message: str) -> None:
        """Report ``<description>: <message>`` to the parent (an emitter that fails is logged)."""
        percent = min(100.0, 100.0 * self.turns / self.max_turns) if self.max_turns else None
        event = ProgressEvent(
            tool_name=self._tool_name,
            message=f"{self.description}: {message}",
            percent=percent,
            audience=self._audience,
        )
        try:
            self._emit(event)
        except Exception:
            logger.exception("toolwire: the parent's progress emitter failed")

    def model_turn(
        self,
        *,
        usage: SubagentUsage | None,
        model: str | None,
        text: str = "",
        tool_names: Sequence[str] = (),
        priced_as: Iterable[str | None] = (),
    ) -> None:
        """Record one model response.

        Args:
            usage: Its tokens, or ``None`` when the endpoint reported none (the cost becomes
                unknown).
            model: The model that answered.
            text: Its text (kept as the last text, for a run that ends without an answer).
            tool_names: The tools it called (none: it answered).
            priced_as: Model names to price it as, before ``model`` (the one requested).
        """
        self.turns += 1
        self.model = model or self.model
        if text:
            self.last_text = text
        if usage is None:
            self._cost = None
        else:
            self.usage = self.usage + usage
            turn_cost = cost_of(usage, self._prices, *priced_as, model)
            self._cost = None if turn_cost is None or self._cost is None else self._cost + turn_cost
        if tool_names:
            shown = ", ".join(tool_names[:_MAX_NAMES_SHOWN])
            more = len(tool_names) - _MAX_NAMES_SHOWN
            suffix = f" and {more} more" if more > 0 else ""
            self.say(f"turn {self.turns}/{self.max_turns}: calling {shown}{suffix}")
        else:
            self.say(f"turn {self.turns}/{self.max_turns}: answered")

    def tool_results(self, outcomes: Sequence[CallOutcome]) -> None:
        """Record the outcomes of one batch of the sub-agent's tool calls."""
        failed = 0
        for outcome in outcomes:
            result = outcome.result
            if isinstance(result, Err):
                failed += 1
                self.tool_uses.append(
                    SubagentToolUse(name=outcome.name, ok=False, code=result.code.value)
                )
            else:
                self.tool_uses.append(SubagentToolUse(name=outcome.name, ok=True))
        count = len(outcomes)
        noun = "tool call" if count == 1 else "tool calls"
        failures = f", {failed} failed" if failed else ""
        self.say(f"turn {self.turns}/{self.max_turns}: {count} {noun} done{failures}")

    def report(self, *, stop: SubagentStop, text: str, error: str | None) -> SubagentReport:
        """The report of the run as recorded so far."""
        return SubagentReport(
            description=self.description,
            text=text,
            stop=stop,
            error=error,
            turns=self.turns,
            tool_calls=tuple(self.tool_uses),
            usage=self.usage,
            cost_usd=self._cost if self.turns else 0.0,
            model=self.model,
            toolset=self.toolset,
            depth=self.depth,
        )
