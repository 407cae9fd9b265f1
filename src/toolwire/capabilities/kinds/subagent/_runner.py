"""The runner protocol: how a host plugs its own agent loop in as a sub-agent.

toolwire prepares everything around a run — the child registry restricted to the allowed
toolsets, the child's context (fresh session, ``agent_id="depth:<n>"``, its own turn budget and
abort signal), the limits, the secrets the runner declared — and hands it to the runner as a
`SubagentJob`. The runner talks to its model, runs the model's tool calls with
``job.registry.execute_parallel(calls, job.context)`` (so the pipeline — budget split, hooks,
capabilities — applies to every child call), tells ``job.tally`` each step, and returns the
final answer. toolwire enforces the timeout and the parent's abort around it.

```python
class MyRunner:
    secret_refs = ()

    async def run(self, job: SubagentJob) -> str:
        ...  # ask the model, job.tally.model_turn(...), run calls, job.tally.tool_results(...)
        return answer
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from toolwire.capabilities.kinds.secrets.seam import ScopedSecrets
from toolwire.capabilities.kinds.subagent._tally import SubagentTally
from toolwire.context import ToolContext

if TYPE_CHECKING:
    from toolwire.registry import ToolRegistry

__all__ = ["SubagentJob", "SubagentRunner", "SubagentStopped"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentJob:
    """One sub-agent run, ready for a runner.

    Attributes:
        description: The short label the model gave the work.
        prompt: The sub-agent's brief: its first user message.
        system_prompt: The host's system prompt for sub-agents, if any.
        registry: The child registry: only the tools the sub-agent may use (``task`` withheld
            at the depth limit). Run the model's calls through its ``execute_parallel``.
        context: The child's `ToolContext`; pass it (with ``current_turn`` updated) to
            ``execute_parallel``.
        max_turns: Model requests the runner may make; it raises `SubagentStopped`
            (``max_turns``) when the last one still asks for tools.
        tally: Where the runner records each model turn and each batch of tool results.
        secrets: The secrets the runner declared in ``secret_refs`` (``None`` without them or
            without a secrets backend).
    """

    description: str
    prompt: str
    system_prompt: str | None
    registry: ToolRegistry
    context: ToolContext
    max_turns: int
    tally: SubagentTally
    secrets: ScopedSecrets | None = None


class SubagentStopped(Exception):
    """A runner's way to end a run without an answer.

    Args:
        stop: ``"max_turns"`` or ``"failed"``.
        message: What happened, for the parent model (never a secret).
    """

    def __init__(self, stop: str, message: str) -> None:
        super().__init__(message)
        self.stop = stop if stop in ("max_turns", "failed") else "failed"
        self.message = message


@runtime_checkable
class SubagentRunner(Protocol):
    """An agent loop toolwire can run as a sub-agent."""

    @property
    def secret_refs(self) -> tuple[str, ...]:
        """The secret refs the runner needs (its API key); ``job.secrets`` resolves only these."""
        ...

    async def run(self, job: SubagentJob) -> str:
        """Run the sub-agent to its final answer and return it.

        Raises:
            SubagentStopped: It ran out of turns, or failed in a way the parent should hear.
                Any other exception is reported as a failure of the runner.
        """
        ...
