"""Depth in agent ids, prices, usage parsing, Retry-After, and the settings a host can get wrong."""

from __future__ import annotations

import email.utils
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.capabilities.kinds.subagent import (
    ChatCompletionsRunner,
    Delegation,
    ModelPrice,
    SubagentJob,
    cost_of,
    price_table,
)
from toolwire.capabilities.kinds.subagent._chat_client import retry_after_seconds
from toolwire.capabilities.kinds.subagent._chat_runner import chat_usage
from toolwire.capabilities.kinds.subagent.seam import SubagentUsage, agent_depth, depth_agent_id
from toolwire.errors import ConfigurationError


class EchoRunner:
    """A runner of our own: answers with the prompt (the protocol is all it needs)."""

    secret_refs: tuple[str, ...] = ()

    async def run(self, job: SubagentJob) -> str:
        return job.prompt


# ------------------------------------------------------------------ depth


@given(st.integers(min_value=0, max_value=9999))
def test_a_depth_survives_its_agent_id(depth: int) -> None:
    assert agent_depth(depth_agent_id(depth)) == depth


@given(st.text().filter(lambda s: "depth:" not in s))
def test_an_agent_id_without_a_depth_is_depth_0(agent_id: str) -> None:
    assert agent_depth(agent_id) == 0


@pytest.mark.parametrize(
    ("agent_id", "depth"),
    [(None, 0), ("", 0), ("planner", 0), ("planner/depth:3", 3), ("depth:1", 1), ("xdepth:4", 0)],
)
def test_agent_depth_reads_a_trailing_depth_segment(agent_id: str | None, depth: int) -> None:
    assert agent_depth(agent_id) == depth


# ------------------------------------------------------------------ prices and usage


@given(
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=0, max_value=10**9),
    st.floats(min_value=0, max_value=1000),
    st.floats(min_value=0, max_value=1000),
)
def test_the_cost_is_linear_in_tokens(
    prompt: int, completion: int, input_price: float, output_price: float
) -> None:
    usage = SubagentUsage(prompt_tokens=prompt, completion_tokens=completion)
    prices = {"m": ModelPrice(input_per_mtok=input_price, output_per_mtok=output_price)}
    expected = (prompt * input_price + completion * output_price) / 1_000_000
    assert cost_of(usage, prices, "m") == pytest.approx(expected)


def test_the_first_priced_model_name_wins_and_an_unpriced_one_costs_none() -> None:
    usage = SubagentUsage(prompt_tokens=1_000_000, completion_tokens=0)
    prices = {"gpt-x": ModelPrice(input_per_mtok=1.0, output_per_mtok=2.0)}
    assert cost_of(usage, prices, "gpt-x-2025-01-01", "gpt-x") == 1.0
    assert cost_of(usage, prices, "other", None) is None


def test_a_price_table_reads_config_data_and_refuses_bad_entries() -> None:
    table = price_table({"m": {"input_per_mtok": 0.4, "output_per_mtok": 1.6}})
    assert table == {"m": ModelPrice(input_per_mtok=0.4, output_per_mtok=1.6)}
    with pytest.raises(ConfigurationError, match="input_per_mtok and output_per_mtok"):
        price_table({"m": {"input": 1}})
    with pytest.raises(ConfigurationError, match="finite number"):
        price_table({"m": {"input_per_mtok": -1, "output_per_mtok": 1}})


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}, (3, 4, 7)),
        ({"usage": {"prompt_tokens": 3, "completion_tokens": 4}}, (3, 4, 7)),
        ({"usage": {"prompt_tokens": "3", "completion_tokens": 4}}, None),
        ({"usage": {"prompt_tokens": True, "completion_tokens": 4}}, None),
        ({"usage": None}, None),
        ({}, None),
    ],
)
def test_usage_is_read_only_when_well_formed(
    data: dict[str, Any], expected: tuple[int, int, int] | None
) -> None:
    usage = chat_usage(data)
    if expected is None:
        assert usage is None
    else:
        assert usage is not None
        assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == expected


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_seconds("12") == 12.0
    assert retry_after_seconds("-5") == 0.0
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert retry_after_seconds(date, now=1_000_000) == pytest.approx(30.0)


# ------------------------------------------------------------------ settings


def test_the_runners_settings_never_hold_the_key() -> None:
    runner = ChatCompletionsRunner(
        base_url="https://api.example.com/v1", model="m", api_key_ref="providers/openai/apiKey"
    )
    assert runner.secret_refs == ("providers/openai/apiKey",)
    assert runner.url == "https://api.example.com/v1/chat/completions"
    assert "providers/openai/apiKey" in repr(runner)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"base_url": "api.example.com"}, "must be an http"),
        ({"model": " "}, "must name a model"),
        ({"api_key_ref": "/etc/passwd"}, "api_key_ref"),
        ({"request_timeout_s": 0}, "request_timeout_s"),
    ],
)
def test_a_bad_runner_setting_says_how_to_fix_it(options: dict[str, Any], message: str) -> None:
    settings = {"base_url": "https://api.example.com/v1", "model": "m", **options}
    with pytest.raises(ConfigurationError, match=message):
        ChatCompletionsRunner(**settings)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"toolsets": "file"}, "list of toolset names"),
        ({"toolsets": ()}, "at least one toolset"),
        ({"max_depth": 0}, "max_depth"),
        ({"max_turns": 0}, "max_turns"),
        ({"timeout_s": 7200}, "timeout_s"),
        ({"turn_budget_chars": 0}, "turn_budget_chars"),
        ({"runner": object()}, "SubagentRunner"),
        ({"hooks": object()}, "HookRegistry"),
    ],
)
def test_a_bad_delegation_setting_says_how_to_fix_it(options: dict[str, Any], message: str) -> None:
    settings: dict[str, Any] = {"runner": EchoRunner(), "toolsets": ("file",), **options}
    with pytest.raises(ConfigurationError, match=message):
        Delegation(**settings)


def test_delegation_keeps_the_toolsets_in_order_without_repeats() -> None:
    delegation = Delegation(runner=EchoRunner(), toolsets=["file", "code", "file"])
    assert delegation.toolsets == ("file", "code")
    assert {t.toolset for t in delegation.available_tools()} >= {"file", "delegation"}


@given(st.text(max_size=40))
def test_retry_after_never_raises_and_is_never_negative(value: str) -> None:
    seconds = retry_after_seconds(value)
    assert seconds is None or seconds >= 0


def test_delegation_takes_its_tools_from_a_registry() -> None:
    from toolwire.registry import ToolRegistry
    from toolwire.toolbox import file_tools

    registry = ToolRegistry()
    registry.register_all(file_tools())
    delegation = Delegation(runner=EchoRunner(), toolsets=("file",), tools=registry)
    assert [t.name for t in delegation.available_tools()] == registry.names
    late = Delegation(runner=EchoRunner(), toolsets=("file",), tools=lambda: registry)
    assert [t.name for t in late.available_tools()] == registry.names
