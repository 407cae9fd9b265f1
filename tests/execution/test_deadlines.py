"""`DeadlineQueue`: a batch's deadlines behind one loop timer, and the batch using it."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from exec_helpers import Calls, registry_with, run

from toolwire.context import ToolContext
from toolwire.execution.deadlines import DeadlineQueue
from toolwire.results import Err, ErrorCode, Ok, ToolResult


def _live_timers(loop: asyncio.AbstractEventLoop) -> int:
    scheduled: list[asyncio.TimerHandle] = loop._scheduled  # type: ignore[attr-defined]
    return sum(1 for handle in scheduled if not handle.cancelled())


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the queue is asyncio's
async def test_deadlines_expire_in_time_order_whatever_the_order_added() -> None:
    loop = asyncio.get_running_loop()
    queue = DeadlineQueue(loop)
    fired: list[str] = []
    everything = asyncio.Event()

    def expire(name: str) -> None:
        fired.append(name)
        if len(fired) == 3:
            everything.set()

    queue.add(0.06, lambda: expire("late"))
    queue.add(0.02, lambda: expire("early"))
    queue.add(0.04, lambda: expire("middle"))
    async with asyncio.timeout(5):
        await everything.wait()
    assert fired == ["early", "middle", "late"]
    assert len(queue) == 0


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the queue is asyncio's
async def test_the_queue_arms_one_loop_timer_for_many_deadlines() -> None:
    loop = asyncio.get_running_loop()
    before = _live_timers(loop)
    queue = DeadlineQueue(loop)
    for i in range(100):
        queue.add(30 + i / 100, lambda: None)
    assert _live_timers(loop) == before + 1
    queue.add(1, lambda: None)  # an earlier deadline re-arms: still one timer
    assert _live_timers(loop) == before + 1
    queue.close()
    assert _live_timers(loop) == before
    assert len(queue) == 0


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the queue is asyncio's
async def test_a_closed_queue_fires_nothing() -> None:
    queue = DeadlineQueue(asyncio.get_running_loop())
    fired: list[int] = []
    queue.add(0.01, lambda: fired.append(1))
    queue.close()
    await asyncio.sleep(0.05)
    assert fired == []


async def _hang(args: dict[str, Any], context: ToolContext) -> ToolResult:
    await anyio.sleep(60)
    return Ok("never")


async def _brief(args: dict[str, Any], context: ToolContext) -> ToolResult:
    await anyio.sleep(0.01)
    return Ok("done")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the queue is asyncio's
async def test_a_batch_of_waiting_calls_arms_one_deadline_timer() -> None:
    """200 calls that wait: their tools' own sleeps are 200 loop timers, their deadlines one."""
    loop = asyncio.get_running_loop()
    registry = registry_with(Calls().tool("slow", _hang, timeout_s=30))
    before = _live_timers(loop)
    batch = asyncio.ensure_future(run(registry, ["slow"] * 200))
    for _ in range(5):
        await asyncio.sleep(0)
    assert _live_timers(loop) == before + 200 + 1
    batch.cancel()
    with pytest.raises(asyncio.CancelledError):
        await batch
    assert _live_timers(loop) == before  # the batch's timer went with it


@pytest.mark.anyio
async def test_calls_of_one_batch_keep_their_own_deadlines() -> None:
    calls = Calls()
    registry = registry_with(
        calls.tool("short", _hang, timeout_s=0.05),
        calls.tool("long", _brief, timeout_s=5),
        calls.tool("other", _hang, timeout_s=0.1),
    )
    with anyio.fail_after(5):
        short, long, other = await run(registry, ["short", "long", "other"])
    assert short.result == Err(
        "Tool short timed out after 0.05 s", ErrorCode.EXECUTION_FAILED, cause="timeout"
    )
    assert long.result == Ok("done")
    assert other.result == Err(
        "Tool other timed out after 0.1 s", ErrorCode.EXECUTION_FAILED, cause="timeout"
    )


async def _a_while(args: dict[str, Any], context: ToolContext) -> ToolResult:
    await anyio.sleep(0.15)
    return Ok("after a while")


@pytest.mark.anyio
async def test_an_ended_calls_deadline_never_reaches_the_next_call_in_the_same_task() -> None:
    """Sequential calls run one after the other in the batch's own task: the first one's
    deadline, still queued after it ended, must not cancel the second."""
    calls = Calls()
    registry = registry_with(
        calls.tool("first", _brief, timeout_s=0.05, sequential=True),
        calls.tool("second", _a_while, timeout_s=5, sequential=True),
    )
    with anyio.fail_after(5):
        first, second = await run(registry, ["first", "second"])
    assert first.result == Ok("done")
    assert second.result == Ok("after a while")
