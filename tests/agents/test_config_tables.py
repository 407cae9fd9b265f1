"""``delegation_from_config``: the ``[agents]`` table of ``toolwire.toml`` → a `Delegation`."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from toolwire.capabilities.kinds.subagent import (
    ChatCompletionsRunner,
    ModelPrice,
    delegation_from_config,
)
from toolwire.errors import ConfigurationError

EXAMPLE = """
[agents]
toolsets = ["file", "code"]
max_depth = 1
max_turns = 8
timeout_s = 300
turn_budget_chars = 20000

[agents.runner]
base_url = "http://127.0.0.1:11434/v1"
model = "qwen3:8b"
api_key_ref = "providers/ollama/apiKey"
temperature = 0.2
max_retries = 4
max_retry_wait_s = 10

[agents.prices."qwen3:8b"]
input_per_mtok = 0
output_per_mtok = 0.5
"""


def test_the_documented_table_builds_the_delegation_it_describes() -> None:
    delegation = delegation_from_config(tomllib.loads(EXAMPLE)["agents"])
    assert delegation.toolsets == ("file", "code")
    assert (delegation.max_depth, delegation.max_turns, delegation.timeout_s) == (1, 8, 300)
    assert delegation.turn_budget_chars == 20000
    runner = delegation.runner
    assert isinstance(runner, ChatCompletionsRunner)
    assert runner.url == "http://127.0.0.1:11434/v1/chat/completions"
    assert runner.secret_refs == ("providers/ollama/apiKey",)
    assert runner.temperature == 0.2
    assert (runner.retry.max_retries, runner.retry.max_retry_wait_s) == (4, 10.0)
    assert delegation.prices == {"qwen3:8b": ModelPrice(input_per_mtok=0, output_per_mtok=0.5)}


def minimal(**changes: Any) -> dict[str, Any]:
    table: dict[str, Any] = {
        "toolsets": ["file"],
        "runner": {"base_url": "https://api.example.com/v1", "model": "m"},
    }
    table.update(changes)
    return table


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"runner": {"base_url": "https://x/v1", "model": "m"}}, "agents.toolsets: required"),
        ({"toolsets": ["file"]}, "agents.runner: required"),
        (minimal(max_turn=3), "agents.max_turn: unknown key"),
        (minimal(max_turns="3"), "agents.max_turns: expected int"),
        (minimal(max_turns=True), "agents.max_turns: expected int"),
        (minimal(runner={"model": "m"}), "agents.runner.base_url: required"),
        (minimal(runner={"base_url": "https://x/v1", "modle": "m"}), "agents.runner.modle"),
        (minimal(runner={"base_url": "https://x/v1", "model": "m", "api_key": "sk-1"}), "never"),
        (minimal(prices={"m": {"input_per_mtok": 1}}), "input_per_mtok and output_per_mtok"),
        (minimal(progress_audience="everyone"), "progress_audience"),
    ],
)
def test_a_bad_table_names_the_key_to_fix(table: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        delegation_from_config(table)


def test_the_key_in_config_is_refused_without_echoing_it() -> None:
    table = minimal(runner={"base_url": "https://x/v1", "model": "m", "api_key": "sk-secret-1"})
    with pytest.raises(ConfigurationError) as caught:
        delegation_from_config(table)
    assert "sk-secret-1" not in str(caught.value)
