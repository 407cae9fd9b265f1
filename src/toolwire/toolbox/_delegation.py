"""``task`` (toolset ``delegation``): hand a piece of work to a sub-agent, get its answer.

The sub-agent starts with a fresh context — it sees only the prompt — and works with the tools of
the toolsets the host allows (``toolset`` picks one of them). It runs through the host's
``subagent`` backend (`toolwire.capabilities.kinds.subagent.Delegation`): the runner, the depth
limit (the depth is carried in ``agent_id`` as ``depth:<n>``; ``task`` is withheld from a sub-agent
at the limit), its own turn budget, turn limit and timeout, and the parent's abort signal. Several
``task`` calls in one batch run in parallel, like any calls.

* the answer → ``Ok(<answer>, structured={stop, turns, tool_calls, usage, cost_usd, ...},
  cost_usd=...)``;
* no backend → ``not_available`` with the setup hint;
* ``toolset`` not allowed → ``input_invalid`` listing the choices;
* called at the depth limit → ``not_available`` (``reason="max_depth"``);
* the sub-agent ran out of turns or time, was aborted, or its endpoint failed →
  ``execution_failed`` saying which (``cause`` = ``max_turns``, ``timeout``, ``aborted`` or
  ``failed``), with what it did and the last text it wrote.

The answer is marked untrusted: a sub-agent reads files and pages the parent never saw. Its
wrapper is labelled ``<untrusted source="task:<description>">``
(`toolwire.safety._untrusted.source_label`).
"""

from __future__ import annotations

from toolwire.capabilities.kinds.subagent.kind import SUBAGENT, subagent
from toolwire.capabilities.kinds.subagent.seam import (
    MAX_SUBAGENT_TIMEOUT_S,
    SubagentReport,
    SubagentRequest,
    agent_depth,
)
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.results import Err, ErrorCode, ToolResult, ok
from toolwire.tool_options import ToolOptions
from toolwire.tools import ToolAnnotations

__all__ = ["MAX_DESCRIPTION_CHARS", "TASK_MAX_CHARS", "task"]

TASK_MAX_CHARS = 20_000
"""``task``'s ``max_result_chars``."""
MAX_DESCRIPTION_CHARS = 200
_PARTIAL_CHARS = 2_000
_NO_ANSWER = "(the sub-agent finished without writing an answer)"
_SETUP = (
    "task: sub-agents are not configured; give the capability backends "
    "kind_backends={'subagent': Delegation(runner=...)} "
    "(toolwire.capabilities.kinds.subagent; see docs/agents.md)."
)


def _failure(report: SubagentReport) -> Err:
    calls = len(report.tool_calls)
    did = f"{report.turns} turn{'s' if report.turns != 1 else ''}, {calls} tool call"
    did += "" if calls == 1 else "s"
    message = f"Sub-agent '{report.description}' stopped: {report.error} ({did})."
    partial = report.text.strip()
    if partial:
        if len(partial) > _PARTIAL_CHARS:
            partial = partial[:_PARTIAL_CHARS] + "…"
        message += f"\nIts last text:\n{partial}"
    return Err(message, ErrorCode.EXECUTION_FAILED, cause=report.stop)


@tool(
    capabilities=[subagent()],
    options=ToolOptions(
        toolset="delegation",
        max_result_chars=TASK_MAX_CHARS,
        output_is_untrusted=True,
        timeout_s=MAX_SUBAGENT_TIMEOUT_S + 60,
        annotations=ToolAnnotations(title="Sub-agent task", open_world=True),
    ),
)
async def task(
    ctx: ToolContext, description: str, prompt: str, toolset: str | None = None
) -> ToolResult:
    """Hand a self-contained piece of work to a sub-agent and return its final answer.

    The sub-agent starts with a fresh context: it sees only your prompt, so put everything it
    needs in it (the goal, what you know, where to look, what to return). It has its own tools
    and turns. Use it for research or multi-step work whose details you do not need to keep.
    Several task calls in one turn run in parallel.

    Args:
        description: A short label for the work (3-8 words), shown in progress reports.
        prompt: Complete instructions for the sub-agent, including what its answer must hold.
        toolset: The toolset the sub-agent may use (omit it for every toolset allowed).
    """
    seam = ctx.seam(SUBAGENT)
    if seam is None:
        return Err(_SETUP, ErrorCode.NOT_AVAILABLE, reason="capability_not_configured")
    label = " ".join(description.split())
    if not label:
        return Err("description is empty", ErrorCode.INPUT_INVALID, field="description")
    if len(label) > MAX_DESCRIPTION_CHARS:
        return Err(
            f"description is {len(label)} characters; keep it under {MAX_DESCRIPTION_CHARS} "
            "(put the details in prompt)",
            ErrorCode.INPUT_INVALID,
            field="description",
        )
    if not prompt.strip():
        return Err("prompt is empty", ErrorCode.INPUT_INVALID, field="prompt")
    choices = seam.choices
    if toolset is not None and toolset not in choices:
        return Err(
            f"toolset {toolset!r} is not allowed for sub-agents; choose one of: "
            f"{', '.join(choices)} (or omit toolset for all of them)",
            ErrorCode.INPUT_INVALID,
            field="toolset",
        )
    depth = agent_depth(ctx.agent_id)
    if depth >= seam.max_depth:
        return Err(
            f"Maximum sub-agent depth ({seam.max_depth}) reached: this agent runs at depth "
            f"{depth} and cannot delegate further; do the work yourself.",
            ErrorCode.NOT_AVAILABLE,
            reason="max_depth",
        )
    report = await seam.run(SubagentRequest(description=label, prompt=prompt, toolset=toolset), ctx)
    if report.stop != "final":
        return _failure(report)
    return ok(
        report.text.strip() or _NO_ANSWER,
        structured=report.structured(),
        cost_usd=report.cost_usd,
    )
