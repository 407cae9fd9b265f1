"""The output budget: split across the batch, capped per tool, enforced by the post-trim."""

from __future__ import annotations

from typing import Any

import pytest
from exec_helpers import Calls, ctx, registry_with, returning, run
from hypothesis import given
from hypothesis import strategies as st

from toolwire.context import ToolContext
from toolwire.execution.budget import call_budget, split_budget, trim_result, truncation_marker
from toolwire.reducers._registry import ReducerContext, ReducerRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult

# -- the functions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "n", "share"),
    [(80_000, 1, 80_000), (80_000, 3, 26_666), (80_000, 0, 80_000), (5, 10, 1)],
)
def test_split_is_floor_of_total_over_n_and_at_least_one(total: int, n: int, share: int) -> None:
    assert split_budget(total, n) == share


def test_a_tool_cap_only_lowers_the_share() -> None:
    assert call_budget(1000, None) == 1000
    assert call_budget(1000, 200) == 200
    assert call_budget(100, 200) == 100


def test_the_marker_is_exact_with_an_em_dash() -> None:
    assert truncation_marker(1234) == "\n[truncated \u2014 1234 chars total]"


def test_a_long_success_is_cut_with_the_marker_counting_the_original_length() -> None:
    result, truncated = trim_result(Ok("abcdefghij", structured={"k": 1}, cost_usd=0.5), 4)
    assert truncated
    assert result == Ok("abcd\n[truncated — 10 chars total]", structured={"k": 1}, cost_usd=0.5)


def test_a_success_within_budget_is_untouched() -> None:
    original = Ok("abcd")
    assert trim_result(original, 4) == (original, False)


def test_errors_are_never_trimmed() -> None:
    original = Err("x" * 100, ErrorCode.EXECUTION_FAILED)
    assert trim_result(original, 4) == (original, False)


@given(st.text(max_size=300), st.integers(1, 200))
def test_trim_keeps_a_prefix_within_budget_plus_the_marker(value: str, budget: int) -> None:
    result, truncated = trim_result(Ok(value), budget)
    assert isinstance(result, Ok)
    assert truncated == (len(value) > budget)
    if truncated:
        assert result.value == value[:budget] + truncation_marker(len(value))
    else:
        assert result.value == value


# -- in the pipeline --------------------------------------------------------------------------


def _budget_reporter(calls: Calls, name: str, **options: Any) -> Any:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Ok(str(context.result_budget_chars))

    return calls.tool(name, body, **options)


@pytest.mark.anyio
async def test_a_single_call_gets_the_whole_default_budget() -> None:
    seen = Calls()
    (outcome,) = await run(registry_with(_budget_reporter(seen, "b")), ["b"])
    assert outcome.result == Ok("80000")


@pytest.mark.anyio
async def test_the_budget_is_split_evenly_across_the_batch() -> None:
    seen = Calls()
    outcomes = await run(registry_with(_budget_reporter(seen, "b")), ["b", "b", "b"])
    assert [o.result for o in outcomes] == [Ok("26666")] * 3


@pytest.mark.anyio
async def test_the_callers_budget_is_the_total_to_split() -> None:
    seen = Calls()
    outcomes = await run(
        registry_with(_budget_reporter(seen, "b")), ["b", "b"], ctx(result_budget_chars=1001)
    )
    assert [o.result for o in outcomes] == [Ok("500")] * 2


@pytest.mark.anyio
async def test_rejected_calls_count_in_the_split() -> None:
    seen = Calls()
    outcomes = await run(registry_with(_budget_reporter(seen, "b")), ["b", "unknown"])
    assert outcomes[0].result == Ok("40000")


@pytest.mark.anyio
async def test_max_result_chars_lowers_the_tools_budget() -> None:
    seen = Calls()
    registry = registry_with(_budget_reporter(seen, "capped", max_result_chars=2000))
    (outcome,) = await run(registry, ["capped"])
    assert outcome.result == Ok("2000")


@pytest.mark.anyio
async def test_a_long_value_is_post_trimmed_with_the_exact_marker() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("big", returning("y" * 50)))
    (outcome,) = await run(registry, ["big"], ctx(result_budget_chars=20))
    assert outcome.result == Ok("y" * 20 + "\n[truncated — 50 chars total]")


@pytest.mark.anyio
async def test_each_call_is_trimmed_to_its_own_share() -> None:
    seen = Calls()
    registry = registry_with(
        seen.tool("big", returning("z" * 30)), seen.tool("small", returning("ok"))
    )
    outcomes = await run(registry, ["big", "small"], ctx(result_budget_chars=20))
    assert outcomes[0].result == Ok("z" * 10 + "\n[truncated — 30 chars total]")
    assert outcomes[1].result == Ok("ok")


@pytest.mark.anyio
async def test_a_long_error_message_is_not_trimmed_here() -> None:
    async def fail(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Err("e" * 100, ErrorCode.EXECUTION_FAILED)

    seen = Calls()
    (outcome,) = await run(registry_with(seen.tool("f", fail)), ["f"], ctx(result_budget_chars=10))
    assert outcome.result == Err("e" * 100, ErrorCode.EXECUTION_FAILED)


class Doubler:
    tool_name = "big"

    def reduce(self, result: ToolResult, context: ReducerContext) -> ToolResult:
        return Ok(result.value * 2) if isinstance(result, Ok) else result


@pytest.mark.anyio
async def test_the_trim_counts_the_length_after_the_reducer() -> None:
    reducers = ReducerRegistry()
    reducers.register(Doubler())
    seen = Calls()
    registry = registry_with(seen.tool("big", returning("ab" * 10)), reducers=reducers)
    (outcome,) = await run(registry, ["big"], ctx(result_budget_chars=10))
    assert outcome.result == Ok("ababababab\n[truncated — 40 chars total]")
