"""Sub-agents: the ``task`` tool's backend, its runner protocol and the runner toolwire ships.

- `Delegation` — the host's ``subagent`` backend (``kind_backends={"subagent": ...}``): the
  runner, the toolsets sub-agents may use, depth, turn and time limits, prices.
- `SubagentRunner` / `SubagentJob` — plug in any agent loop (see ``docs/agents.md``).
- `ChatCompletionsRunner` — a small loop over an OpenAI-compatible Chat Completions endpoint
  (httpx; ``pip install 'toolwire[web]'``).
- `ModelPrice` — dollars per million tokens, for ``cost_usd``.
- `delegation_from_config` — a `Delegation` from the ``[agents]`` table of ``toolwire.toml``.
"""

from __future__ import annotations

from toolwire.agents.chat_client import ChatEndpointError, RetryPolicy
from toolwire.agents.chat_runner import ChatCompletionsRunner
from toolwire.agents.delegation import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_TURNS,
    DEFAULT_TIMEOUT_S,
    DEFAULT_TURN_BUDGET_CHARS,
    MAX_TIMEOUT_S,
    BoundSubagents,
    Delegation,
    ToolSource,
)
from toolwire.agents.pricing import ModelPrice, PriceTable, cost_of, price_table
from toolwire.agents.runner import SubagentJob, SubagentRunner, SubagentStopped
from toolwire.agents.runs import DEFAULT_SYSTEM_PROMPT
from toolwire.agents.settings import delegation_from_config, runner_from_config
from toolwire.agents.tally import SubagentTally

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_TURN_BUDGET_CHARS",
    "MAX_TIMEOUT_S",
    "BoundSubagents",
    "ChatCompletionsRunner",
    "ChatEndpointError",
    "Delegation",
    "ModelPrice",
    "PriceTable",
    "RetryPolicy",
    "SubagentJob",
    "SubagentRunner",
    "SubagentStopped",
    "SubagentTally",
    "ToolSource",
    "cost_of",
    "delegation_from_config",
    "price_table",
    "runner_from_config",
]
