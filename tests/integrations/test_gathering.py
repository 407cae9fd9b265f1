"""`CallGatherer`: the calls of one response run as one batch, and a batch never hangs."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import CallOutcome, ToolCall, ToolContext, ok
from toolwire.execution.budget import split_budget
from toolwire.integrations._gathering import CallGatherer

pytestmark = pytest.mark.anyio


class Runs:
    """A batch runner that answers every call ``ok`` and records the batches."""

    def __init__(self) -> None:
        self.batches: list[tuple[list[str], int]] = []
        self.release = anyio.Event()
        self.block = False

    async def __call__(self, calls: Sequence[ToolCall], ctx: ToolContext) -> list[CallOutcome]:
        self.batches.append(([c.id for c in calls], ctx.result_budget_chars))
        if self.block:
            await self.release.wait()
        return [
            CallOutcome(tool_call_id=c.id, name=c.name, result=ok(c.id), duration_ms=0.0)
            for c in calls
        ]


def _call(index: int) -> ToolCall:
    return ToolCall(id=f"c{index}", name="t", args="{}")


CTX = ToolContext(session_id="s", result_budget_chars=1000)


async def test_calls_started_together_run_as_one_batch() -> None:
    runs = Runs()
    gatherer = CallGatherer(runs)
    results: dict[str, str] = {}

    async def one(i: int) -> None:
        outcome = await gatherer.submit("response-1", _call(i), CTX)
        results[outcome.tool_call_id] = outcome.result.value  # type: ignore[union-attr]

    async with anyio.create_task_group() as group:
        for i in range(4):
            group.start_soon(one, i)
    assert runs.batches == [(["c0", "c1", "c2", "c3"], 1000)]
    assert results == {f"c{i}": f"c{i}" for i in range(4)}


async def test_different_keys_run_apart() -> None:
    runs = Runs()
    gatherer = CallGatherer(runs)
    async with anyio.create_task_group() as group:
        group.start_soon(gatherer.submit, "run-a", _call(0), CTX)
        group.start_soon(gatherer.submit, "run-b", _call(1), CTX)
    assert sorted(runs.batches) == [(["c0"], 1000), (["c1"], 1000)]


async def test_an_expected_batch_runs_as_soon_as_it_is_complete_without_settling() -> None:
    runs = Runs()
    gatherer = CallGatherer(runs, settle_ticks=10_000_000)  # settling would take far too long
    async with anyio.create_task_group() as group:
        for i in range(3):
            group.start_soon(lambda i=i: gatherer.submit("r", _call(i), CTX, expected=3))
    assert runs.batches == [(["c0", "c1", "c2"], 1000)]


async def test_a_call_that_never_comes_is_not_waited_for_and_shares_are_kept() -> None:
    runs = Runs()
    gatherer = CallGatherer(runs, settle_ticks=4)
    outcome = await gatherer.submit("r", _call(0), CTX, expected=4)
    assert outcome.tool_call_id == "c0"
    # one call of a four-call response: a quarter of the budget, as in the full batch
    assert runs.batches == [(["c0"], 250)]


async def test_a_key_of_none_runs_the_call_alone() -> None:
    runs = Runs()
    gatherer = CallGatherer(runs)
    async with anyio.create_task_group() as group:
        group.start_soon(gatherer.submit, None, _call(0), CTX)
        group.start_soon(gatherer.submit, None, _call(1), CTX)
    assert sorted(runs.batches) == [(["c0"], 1000), (["c1"], 1000)]


async def test_a_late_call_starts_a_new_batch_instead_of_joining_a_running_one() -> None:
    runs = Runs()
    runs.block = True
    gatherer = CallGatherer(runs, settle_ticks=2)
    async with anyio.create_task_group() as group:
        group.start_soon(gatherer.submit, "r", _call(0), CTX)
        while not runs.batches:
            await anyio.lowlevel.checkpoint()
        group.start_soon(gatherer.submit, "r", _call(1), CTX)
        while len(runs.batches) < 2:
            await anyio.lowlevel.checkpoint()
        runs.release.set()
    assert [ids for ids, _ in runs.batches] == [["c0"], ["c1"]]


async def test_when_the_first_call_is_cancelled_the_others_get_an_aborted_result() -> None:
    runs = Runs()
    runs.block = True
    gatherer = CallGatherer(runs)
    outcomes: list[CallOutcome] = []

    async def member() -> None:
        outcomes.append(await gatherer.submit("r", _call(1), CTX))

    leader_scope = anyio.CancelScope()

    async def leader() -> None:
        with leader_scope:
            await gatherer.submit("r", _call(0), CTX)

    async with anyio.create_task_group() as group:
        group.start_soon(leader)
        group.start_soon(member)
        while not runs.batches:
            await anyio.lowlevel.checkpoint()
        leader_scope.cancel()
    assert len(outcomes) == 1
    assert outcomes[0].result.code.value == "execution_failed"  # type: ignore[union-attr]
    assert "aborted" in outcomes[0].result.error  # type: ignore[union-attr]


async def test_a_runner_that_raises_raises_in_every_call_of_the_batch() -> None:
    async def broken(calls: Sequence[ToolCall], ctx: ToolContext) -> list[CallOutcome]:
        raise RuntimeError("bug below")

    gatherer = CallGatherer(broken)
    errors: list[str] = []

    async def one(i: int) -> None:
        try:
            await gatherer.submit("r", _call(i), CTX)
        except RuntimeError as exc:
            errors.append(str(exc))

    async with anyio.create_task_group() as group:
        for i in range(3):
            group.start_soon(one, i)
    assert errors == ["bug below"] * 3


def test_settle_ticks_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="settle_ticks"):
        CallGatherer(Runs(), settle_ticks=-1)


@settings(max_examples=60, deadline=None)
@given(
    total=st.integers(min_value=1, max_value=200_000),
    calls=st.integers(min_value=1, max_value=12),
    data=st.data(),
)
def test_any_partial_batch_gives_each_call_its_share_of_the_whole_response(
    total: int, calls: int, data: st.DataObject
) -> None:
    arrived = data.draw(st.integers(min_value=1, max_value=calls))
    runs = Runs()
    gatherer = CallGatherer(runs, settle_ticks=2)
    ctx = ToolContext(session_id="s", result_budget_chars=total)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for i in range(arrived):
                group.start_soon(lambda i=i: gatherer.submit("r", _call(i), ctx, share_of=calls))

    anyio.run(main)
    [(ids, budget)] = runs.batches
    assert len(ids) == arrived
    if total >= calls:
        assert split_budget(budget, arrived) == split_budget(total, calls)
    else:  # fewer characters than calls: every call still gets at least one
        assert split_budget(budget, arrived) == 1
