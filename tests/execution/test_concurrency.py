"""Timeouts, the abort signal, max_concurrency, sequential barriers and outer cancellation."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import pytest
from exec_helpers import Calls, ctx, registry_with, run

from toolwire.context import AbortSignal, ToolContext
from toolwire.decorator import tool
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tool_options import ToolOptions


async def _hang(args: dict[str, Any], context: ToolContext) -> ToolResult:
    await anyio.sleep(60)
    return Ok("never")


@tool(options=ToolOptions(timeout_s=0.2))
def sleepy_sync() -> str:
    """Blocks its worker thread for five seconds."""
    time.sleep(5)
    return "woke"


@tool
def thread_hang(ctx: ToolContext) -> str:
    """Blocks its worker thread until the test releases it."""
    RELEASE.wait(10)
    return "released"


RELEASE = threading.Event()


@pytest.fixture(autouse=True)
def _release_threads() -> Any:
    RELEASE.clear()
    yield
    RELEASE.set()


# -- timeouts ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_tool_over_its_timeout_fails_saying_so() -> None:
    registry = registry_with(Calls().tool("slow", _hang, timeout_s=0.1))
    with anyio.fail_after(5):
        (outcome,) = await run(registry, ["slow"])
    assert outcome.result == Err(
        "Tool slow timed out after 0.1 s", ErrorCode.EXECUTION_FAILED, cause="timeout"
    )


@pytest.mark.anyio
async def test_the_registry_default_timeout_applies_to_tools_without_one() -> None:
    registry = registry_with(Calls().tool("slow", _hang), default_timeout_s=0.15)
    with anyio.fail_after(5):
        (outcome,) = await run(registry, ["slow"])
    assert outcome.result == Err(
        "Tool slow timed out after 0.15 s", ErrorCode.EXECUTION_FAILED, cause="timeout"
    )


@pytest.mark.anyio
async def test_the_tools_own_timeout_wins_over_the_default() -> None:
    async def quick_enough(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(0.1)
        return Ok("made it")

    registry = registry_with(Calls().tool("t", quick_enough, timeout_s=5), default_timeout_s=0.01)
    (outcome,) = await run(registry, ["t"])
    assert outcome.result == Ok("made it")


@pytest.mark.anyio
async def test_no_default_timeout_lets_tools_run() -> None:
    async def brief(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(0.05)
        return Ok("done")

    registry = registry_with(Calls().tool("t", brief), default_timeout_s=None)
    (outcome,) = await run(registry, ["t"])
    assert outcome.result == Ok("done")


@pytest.mark.anyio
async def test_a_timed_out_sync_tool_does_not_hold_the_batch() -> None:
    registry = registry_with(sleepy_sync, Calls().tool("fast"))
    with anyio.fail_after(2):  # a correctness bound: the tool itself sleeps for 5 s
        outcomes = await run(registry, ["sleepy_sync", "fast"])
    assert outcomes[0].result == Err(
        "Tool sleepy_sync timed out after 0.2 s", ErrorCode.EXECUTION_FAILED, cause="timeout"
    )
    assert outcomes[1].result == Ok("fast ok")


@pytest.mark.anyio
async def test_a_timeout_is_reported_to_observers_as_tool_error() -> None:
    registry = registry_with(Calls().tool("slow", _hang, timeout_s=0.05))
    events: list[str] = []
    registry.hooks.observe(lambda event: events.append(f"{event.name}:{event.data.get('error')}"))
    with anyio.fail_after(5):
        await run(registry, ["slow"])
    assert "tool:error:Tool slow timed out after 0.05 s" in events


# -- abort ------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_an_already_aborted_signal_answers_every_call_and_runs_nothing() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("a"), seen.tool("b"))
    context = ctx()
    context.abort_signal.abort("user left")
    outcomes = await run(registry, ["a", "b"], context)
    assert [o.result for o in outcomes] == [
        Err("aborted: user left", ErrorCode.EXECUTION_FAILED, cause="aborted")
    ] * 2
    assert seen.log == []


@pytest.mark.anyio
async def test_abort_cancels_in_flight_calls_with_the_reason() -> None:
    started = anyio.Event()

    async def wait_forever(args: dict[str, Any], context: ToolContext) -> ToolResult:
        started.set()
        await anyio.sleep(60)
        return Ok("never")

    registry = registry_with(Calls().tool("w", wait_forever), Calls().tool("quick"))
    context = ctx()
    results: list[Any] = []

    async def batch() -> None:
        results.extend(await run(registry, ["w", "quick", "w"], context))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(batch)
            await started.wait()
            context.abort_signal.abort("stop pressed")
    assert [o.result for o in results] == [
        Err("aborted: stop pressed", ErrorCode.EXECUTION_FAILED, cause="aborted"),
        Ok("quick ok"),
        Err("aborted: stop pressed", ErrorCode.EXECUTION_FAILED, cause="aborted"),
    ]


@pytest.mark.anyio
async def test_abort_from_another_thread_cancels_async_and_sync_calls() -> None:
    registry = registry_with(Calls().tool("async_hang", _hang), thread_hang)
    context = ctx()
    timer = threading.Timer(0.2, context.abort_signal.abort, args=("from a timer thread",))
    timer.start()
    try:
        with anyio.fail_after(3):
            outcomes = await run(registry, ["async_hang", "thread_hang"], context)
    finally:
        timer.cancel()
    assert [o.result for o in outcomes] == [
        Err("aborted: from a timer thread", ErrorCode.EXECUTION_FAILED, cause="aborted")
    ] * 2


@pytest.mark.anyio
async def test_a_single_call_is_aborted_too() -> None:
    registry = registry_with(Calls().tool("w", _hang))
    context = ctx()
    timer = threading.Timer(0.1, context.abort_signal.abort, args=("solo",))
    timer.start()
    try:
        with anyio.fail_after(3):
            (outcome,) = await run(registry, ["w"], context)
    finally:
        timer.cancel()
    assert outcome.result == Err("aborted: solo", ErrorCode.EXECUTION_FAILED, cause="aborted")


@pytest.mark.anyio
async def test_tools_see_the_callers_signal_and_can_wait_on_it() -> None:
    signal = AbortSignal()

    async def cooperative(args: dict[str, Any], context: ToolContext) -> ToolResult:
        assert context.abort_signal is signal
        await context.abort_signal.wait()
        context.abort_signal.raise_if_aborted()
        return Ok("unreachable")

    registry = registry_with(Calls().tool("c", cooperative))
    timer = threading.Timer(0.1, signal.abort, args=("cooperative stop",))
    timer.start()
    try:
        with anyio.fail_after(3):
            (outcome,) = await run(registry, ["c"], ctx(abort_signal=signal))
    finally:
        timer.cancel()
    assert outcome.result == Err(
        "aborted: cooperative stop", ErrorCode.EXECUTION_FAILED, cause="aborted"
    )


@pytest.mark.anyio
async def test_calls_waiting_for_a_concurrency_slot_are_aborted_without_running() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("w", _hang), max_concurrency=1)
    context = ctx()
    timer = threading.Timer(0.2, context.abort_signal.abort, args=("enough",))
    timer.start()
    try:
        with anyio.fail_after(3):
            outcomes = await run(registry, ["w", "w", "w"], context)
    finally:
        timer.cancel()
    assert all(o.result.error == "aborted: enough" for o in outcomes)  # type: ignore[union-attr]
    assert len(seen.log) == 1


@pytest.mark.anyio
async def test_an_abort_after_the_batch_does_not_touch_it() -> None:
    registry = registry_with(Calls().tool("t"))
    context = ctx()
    outcomes = await run(registry, ["t", "t"], context)
    context.abort_signal.abort("late")
    assert [o.result for o in outcomes] == [Ok("t ok")] * 2


# -- outer cancellation -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_cancelling_the_caller_cancels_every_call_of_the_batch() -> None:
    cancelled: list[str] = []

    def tracked(name: str) -> Any:
        async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
            try:
                await anyio.sleep(60)
            except anyio.get_cancelled_exc_class():
                cancelled.append(name)
                raise
            return Ok("never")

        return body

    registry = registry_with(Calls().tool("a", tracked("a")), Calls().tool("b", tracked("b")))
    with anyio.fail_after(3), anyio.move_on_after(0.1) as scope:
        await run(registry, ["a", "b"])
    assert scope.cancelled_caught
    assert sorted(cancelled) == ["a", "b"]


# -- max_concurrency --------------------------------------------------------------------------


@pytest.mark.anyio
async def test_max_concurrency_bounds_the_calls_in_flight() -> None:
    state = {"now": 0, "peak": 0}
    two_in = anyio.Event()

    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        if state["now"] == 2:
            two_in.set()
        with anyio.move_on_after(1):
            await two_in.wait()
        await anyio.sleep(0.01)
        state["now"] -= 1
        return Ok("done")

    registry = registry_with(Calls().tool("t", body), max_concurrency=2)
    with anyio.fail_after(5):
        outcomes = await run(registry, ["t"] * 6)
    assert [o.result for o in outcomes] == [Ok("done")] * 6
    assert state["peak"] == 2


@pytest.mark.anyio
async def test_without_a_limit_the_whole_batch_is_in_flight() -> None:
    state = {"now": 0, "peak": 0}

    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await anyio.sleep(0.05)
        state["now"] -= 1
        return Ok("done")

    registry = registry_with(Calls().tool("t", body))
    await run(registry, ["t"] * 6)
    assert state["peak"] == 6


# -- sequential barriers ----------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_sequential_tool_is_a_barrier() -> None:
    log: list[str] = []

    def logged(name: str) -> Any:
        async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
            log.append(f"start {context.tool_call_id}")
            for _ in range(3):
                await anyio.lowlevel.checkpoint()
            log.append(f"end {context.tool_call_id}")
            return Ok(name)

        return body

    seen = Calls()
    registry = registry_with(
        seen.tool("par", logged("par")), seen.tool("seq", logged("seq"), sequential=True)
    )
    outcomes = await run(registry, ["par", "par", "seq", "par", "par"])
    assert [o.result for o in outcomes] == [Ok("par"), Ok("par"), Ok("seq"), Ok("par"), Ok("par")]
    seq_start, seq_end = log.index("start c2"), log.index("end c2")
    assert seq_end == seq_start + 1  # nothing ran alongside it
    assert {"end c0", "end c1"} <= set(log[:seq_start])
    assert {"start c3", "start c4"} <= set(log[seq_end:])
    # the calls before it still ran together (in either order: trio shuffles its run queue)
    assert set(log[0:2]) == {"start c0", "start c1"}


@pytest.mark.anyio
async def test_consecutive_sequential_tools_run_one_after_the_other_in_order() -> None:
    log: list[str] = []

    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        log.append(f"start {context.tool_call_id}")
        await anyio.sleep(0.01)
        log.append(f"end {context.tool_call_id}")
        return Ok("ok")

    registry = registry_with(Calls().tool("seq", body, sequential=True))
    await run(registry, ["seq", "seq", "seq"])
    assert log == ["start c0", "end c0", "start c1", "end c1", "start c2", "end c2"]
