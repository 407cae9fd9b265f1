"""`delegation_from_config`: a `Delegation` from the ``[agents]`` table of ``toolwire.toml``.

```toml
[agents]
toolsets = ["file", "code"]      # what sub-agents may use (required)
max_depth = 2
max_turns = 12
timeout_s = 600
turn_budget_chars = 40000

[agents.runner]                  # the shipped ChatCompletionsRunner
base_url = "https://api.openai.com/v1"
model = "gpt-4.1-mini"
api_key_ref = "providers/openai/apiKey"   # a secret ref, never the key itself
max_retries = 2

[agents.prices."gpt-4.1-mini"]
input_per_mtok = 0.40
output_per_mtok = 1.60
```

Keys are checked: an unknown one, or a value of the wrong type, raises `ConfigurationError`
naming it (``agents.runner.modle: unknown key; use ...``). The API key itself is refused in
config (``api_key``): it belongs in the secrets store, under the ref.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.capabilities.kinds.subagent._chat_client import RetryPolicy
from toolwire.capabilities.kinds.subagent._chat_runner import ChatCompletionsRunner
from toolwire.capabilities.kinds.subagent._delegation import Delegation, ToolSource
from toolwire.capabilities.kinds.subagent._pricing import price_table
from toolwire.errors import ConfigurationError
from toolwire.execution.hooks import HookRegistry

__all__ = ["AGENT_KEYS", "RUNNER_KEYS", "delegation_from_config", "runner_from_config"]

AGENT_KEYS: Mapping[str, type | tuple[type, ...]] = {
    "toolsets": list,
    "max_depth": int,
    "max_turns": int,
    "timeout_s": (int, float),
    "turn_budget_chars": int,
    "system_prompt": str,
    "tool_timeout_s": (int, float),
    "max_concurrency": int,
    "progress_audience": str,
    "runner": dict,
    "prices": dict,
}
"""The keys of ``[agents]`` and their TOML types."""

RUNNER_KEYS: Mapping[str, type | tuple[type, ...]] = {
    "base_url": str,
    "model": str,
    "api_key_ref": str,
    "temperature": (int, float),
    "max_tokens": int,
    "request_timeout_s": (int, float),
    "max_retries": int,
    "max_retry_wait_s": (int, float),
    "retry_backoff_s": (int, float),
    "strict": bool,
    "extra_body": dict,
}
"""The keys of ``[agents.runner]`` and their TOML types."""


def _checked(
    table: Mapping[str, Any], where: str, keys: Mapping[str, type | tuple[type, ...]]
) -> dict[str, Any]:
    if not isinstance(table, Mapping):
        raise ConfigurationError(f"{where}: expected a table")
    for key, value in table.items():
        if key == "api_key":
            raise ConfigurationError(
                f"{where}.api_key: never put the key in config; store it as a secret and name "
                "it with api_key_ref (e.g. providers/openai/apiKey)"
            )
        if key not in keys:
            raise ConfigurationError(f"{where}.{key}: unknown key; use {', '.join(sorted(keys))}")
        expected = keys[key]
        wrong_bool = isinstance(value, bool) and expected is not bool
        if wrong_bool or not isinstance(value, expected):
            names = expected if isinstance(expected, tuple) else (expected,)
            kind = " or ".join(t.__name__ for t in names)
            raise ConfigurationError(f"{where}.{key}: expected {kind}, got {value!r}")
    return dict(table)


def runner_from_config(
    table: Mapping[str, Any], where: str = "agents.runner"
) -> ChatCompletionsRunner:
    """The shipped runner from ``[agents.runner]``.

    Raises:
        ConfigurationError: a missing ``base_url`` or ``model``, an unknown key, a bad value.
    """
    values = _checked(table, where, RUNNER_KEYS)
    for required in ("base_url", "model"):
        if required not in values:
            raise ConfigurationError(f"{where}.{required}: required")
    retry = RetryPolicy(
        max_retries=values.pop("max_retries", 2),
        max_retry_wait_s=float(values.pop("max_retry_wait_s", 30.0)),
        backoff_s=float(values.pop("retry_backoff_s", 0.5)),
    )
    return ChatCompletionsRunner(retry=retry, **values)


def delegation_from_config(
    table: Mapping[str, Any],
    *,
    tools: ToolSource | None = None,
    hooks: HookRegistry | None = None,
    where: str = "agents",
) -> Delegation:
    """A `Delegation` with the shipped runner, from the ``[agents]`` table (see the module).

    Args:
        table: The ``[agents]`` table as read from TOML.
        tools: Where sub-agents' tools come from (default: the built-in tools).
        hooks: The hooks child calls go through (pass the parent registry's).
        where: The table's name, for messages.

    Raises:
        ConfigurationError: a missing ``toolsets`` or ``runner``, an unknown key, a bad value.
    """
    values = _checked(table, where, AGENT_KEYS)
    if "toolsets" not in values:
        raise ConfigurationError(f"{where}.toolsets: required (the toolsets sub-agents may use)")
    if "runner" not in values:
        raise ConfigurationError(f"{where}.runner: required (base_url and model of the endpoint)")
    runner = runner_from_config(values.pop("runner"), f"{where}.runner")
    prices = price_table(values.pop("prices", {}))
    toolsets = tuple(values.pop("toolsets"))
    return Delegation(
        runner=runner, toolsets=toolsets, prices=prices, tools=tools, hooks=hooks, **values
    )
