"""Sub-agents: the ``task`` tool's backend, its runner protocol and the runner toolwire ships.

- `Delegation` — the host's ``subagent`` backend (``kind_backends={"subagent": ...}``): the
  runner, the toolsets sub-agents may use, depth, turn and time limits, prices.
- `SubagentRunner` / `SubagentJob` — plug in any agent loop (see ``docs/agents.md``).
- `ChatCompletionsRunner` — a small loop over an OpenAI-compatible Chat Completions endpoint
  (httpx; ``pip install 'toolwire[web]'``).
- `ModelPrice` — dollars per million tokens, for ``cost_usd``.
- `delegation_from_config` — a `Delegation` from the ``[agents]`` table of ``toolwire.toml``.

Rooms: ``kind.py`` (declaration and row), ``seam.py`` (`ScopedSubagents` and a run's values),
``_delegation.py`` (`Delegation`), ``_settings.py`` (`delegation_from_config`), ``_runner.py`` (the
runner protocol), ``_runs.py`` (one run under its timeout and abort), ``_child.py`` (a sub-agent's
registry and context), ``_tally.py`` (`SubagentTally`: progress as it happens), ``_pricing.py``
(`ModelPrice`, `cost_of`), ``_chat_runner.py`` (`ChatCompletionsRunner`) and ``_chat_client.py``
(one Chat Completions request over httpx).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.subagent._chat_client import ChatEndpointError, RetryPolicy
    from toolwire.capabilities.kinds.subagent._chat_runner import ChatCompletionsRunner
    from toolwire.capabilities.kinds.subagent._delegation import (
        DEFAULT_MAX_DEPTH,
        DEFAULT_MAX_TURNS,
        DEFAULT_TIMEOUT_S,
        DEFAULT_TURN_BUDGET_CHARS,
        MAX_TIMEOUT_S,
        BoundSubagents,
        Delegation,
        ToolSource,
    )
    from toolwire.capabilities.kinds.subagent._pricing import (
        ModelPrice,
        PriceTable,
        cost_of,
        price_table,
    )
    from toolwire.capabilities.kinds.subagent._runner import (
        SubagentJob,
        SubagentRunner,
        SubagentStopped,
    )
    from toolwire.capabilities.kinds.subagent._runs import DEFAULT_SYSTEM_PROMPT
    from toolwire.capabilities.kinds.subagent._settings import (
        delegation_from_config,
        runner_from_config,
    )
    from toolwire.capabilities.kinds.subagent._tally import SubagentTally
    from toolwire.capabilities.kinds.subagent.kind import (
        SUBAGENT,
        ScopedSubagents,
        SubagentCapability,
        SubagentHost,
        subagent,
    )

_LAZY = {
    "SUBAGENT": "toolwire.capabilities.kinds.subagent.kind",
    "ScopedSubagents": "toolwire.capabilities.kinds.subagent.kind",
    "SubagentCapability": "toolwire.capabilities.kinds.subagent.kind",
    "SubagentHost": "toolwire.capabilities.kinds.subagent.kind",
    "subagent": "toolwire.capabilities.kinds.subagent.kind",
    "BoundSubagents": "toolwire.capabilities.kinds.subagent._delegation",
    "ChatCompletionsRunner": "toolwire.capabilities.kinds.subagent._chat_runner",
    "ChatEndpointError": "toolwire.capabilities.kinds.subagent._chat_client",
    "DEFAULT_MAX_DEPTH": "toolwire.capabilities.kinds.subagent._delegation",
    "DEFAULT_MAX_TURNS": "toolwire.capabilities.kinds.subagent._delegation",
    "DEFAULT_SYSTEM_PROMPT": "toolwire.capabilities.kinds.subagent._runs",
    "DEFAULT_TIMEOUT_S": "toolwire.capabilities.kinds.subagent._delegation",
    "DEFAULT_TURN_BUDGET_CHARS": "toolwire.capabilities.kinds.subagent._delegation",
    "Delegation": "toolwire.capabilities.kinds.subagent._delegation",
    "MAX_TIMEOUT_S": "toolwire.capabilities.kinds.subagent._delegation",
    "ModelPrice": "toolwire.capabilities.kinds.subagent._pricing",
    "PriceTable": "toolwire.capabilities.kinds.subagent._pricing",
    "RetryPolicy": "toolwire.capabilities.kinds.subagent._chat_client",
    "SubagentJob": "toolwire.capabilities.kinds.subagent._runner",
    "SubagentRunner": "toolwire.capabilities.kinds.subagent._runner",
    "SubagentStopped": "toolwire.capabilities.kinds.subagent._runner",
    "SubagentTally": "toolwire.capabilities.kinds.subagent._tally",
    "ToolSource": "toolwire.capabilities.kinds.subagent._delegation",
    "cost_of": "toolwire.capabilities.kinds.subagent._pricing",
    "delegation_from_config": "toolwire.capabilities.kinds.subagent._settings",
    "price_table": "toolwire.capabilities.kinds.subagent._pricing",
    "runner_from_config": "toolwire.capabilities.kinds.subagent._settings",
}


__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_TURN_BUDGET_CHARS",
    "MAX_TIMEOUT_S",
    "SUBAGENT",
    "BoundSubagents",
    "ChatCompletionsRunner",
    "ChatEndpointError",
    "Delegation",
    "ModelPrice",
    "PriceTable",
    "RetryPolicy",
    "ScopedSubagents",
    "SubagentCapability",
    "SubagentHost",
    "SubagentJob",
    "SubagentRunner",
    "SubagentStopped",
    "SubagentTally",
    "ToolSource",
    "cost_of",
    "delegation_from_config",
    "price_table",
    "runner_from_config",
    "subagent",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
