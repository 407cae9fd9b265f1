"""Nothing a tool does escapes its own call: interrupts, timeouts, aborts, malformed results.

The batches that could take a loop down run on a fresh event loop in a worker thread, so a
regression ends that loop (and is reported here) instead of the test session.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from exec_helpers import Calls, ctx, registry_with, returning, run

from toolwire.calls import CallOutcome
from toolwire.context import AbortSignal, ToolContext
from toolwire.decorator import tool
from toolwire.results import Err, ErrorCode, Ok, ToolResult

BACKENDS = ["asyncio", "trio"]
FATAL = [KeyboardInterrupt, SystemExit, GeneratorExit]


def _on_a_fresh_loop(backend: str, batch: Callable[[], Any]) -> Any:
    """Run ``batch`` with ``anyio.run`` in a new thread; return its value or what escaped."""
    box: dict[str, Any] = {}

    def main() -> None:
        try:
            box["value"] = anyio.run(batch, backend=backend)
        except BaseException as exc:  # what escaped the event loop
            box["escaped"] = exc

    thread = threading.Thread(target=main)
    thread.start()
    thread.join(30)
    assert not thread.is_alive()
    if "escaped" in box:
        raise AssertionError(f"the event loop died: {box['escaped']!r}")
    return box["value"]


def _raising(kind: type[BaseException], *, after_await: bool) -> Any:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        if after_await:
            await anyio.sleep(0.01)
        raise kind("boom")

    return body


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", FATAL)
@pytest.mark.parametrize("after_await", [False, True])
def test_a_fatal_exception_answers_only_its_own_call(
    backend: str, kind: type[BaseException], after_await: bool
) -> None:
    seen = Calls()
    registry = registry_with(
        seen.tool("bad", _raising(kind, after_await=after_await)),
        seen.tool("slow", _sleeping_ok(0.05)),
        seen.tool("good"),
    )

    async def batch() -> list[CallOutcome]:
        outcomes = await run(registry, ["slow", "bad", "good"])
        await anyio.lowlevel.checkpoint()  # the loop still runs after the batch
        return outcomes

    slow, bad, good = _on_a_fresh_loop(backend, batch)
    assert bad.result == Err("boom", ErrorCode.EXECUTION_FAILED, cause=kind.__name__)
    assert slow.result == Ok("slept")
    assert good.result == Ok("good ok")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", FATAL)
def test_a_fatal_exception_in_a_worker_thread_answers_its_own_call(
    backend: str, kind: type[BaseException]
) -> None:
    @tool
    def blocking(n: int) -> str:
        """Raise from a worker thread.

        Args:
            n: Ignored.
        """
        raise kind("from a thread")

    seen = Calls()
    registry = registry_with(blocking, seen.tool("good"))

    async def batch() -> list[CallOutcome]:
        return await registry.execute_parallel(
            [{"id": "a", "name": "blocking", "args": '{"n": 1}'}, {"id": "b", "name": "good"}],
            ctx(),
        )

    bad, good = _on_a_fresh_loop(backend, batch)
    assert bad.result == Err("from a thread", ErrorCode.EXECUTION_FAILED, cause=kind.__name__)
    assert good.result == Ok("good ok")


def _sleeping_ok(seconds: float) -> Any:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(seconds)
        return Ok("slept")

    return body


# -- timeouts and aborts, whatever the tool opened in its first step ---------------------------


def _opens_then_sleeps(opener: str) -> Any:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        if opener == "scope":
            with anyio.CancelScope():
                await anyio.sleep(5)
        elif opener == "fail_after":
            with anyio.fail_after(30):
                await anyio.sleep(5)
        else:
            async with anyio.create_task_group() as group:
                group.start_soon(anyio.sleep, 5)
        return Ok("finished")

    return body


@pytest.mark.anyio
@pytest.mark.parametrize("opener", ["scope", "fail_after", "task_group"])
async def test_a_tool_that_opens_scopes_before_its_first_await_still_times_out(
    opener: str,
) -> None:
    seen = Calls()
    registry = registry_with(seen.tool("t", _opens_then_sleeps(opener), timeout_s=0.05))
    started = time.monotonic()
    (outcome,) = await run(registry, ["t"])
    assert outcome.result == Err("Tool t timed out after 0.05 s", cause="timeout")
    assert time.monotonic() - started < 2
    await anyio.sleep(0.01)  # no cancellation is left pending on the caller


@pytest.mark.anyio
async def test_a_timeout_leaves_no_cancellation_on_the_callers_task() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("t", _sleeping_ok(5), timeout_s=0.02))
    (outcome,) = await run(registry, ["t"])
    assert outcome.result == Err("Tool t timed out after 0.02 s", cause="timeout")
    try:
        task = asyncio.current_task()
    except RuntimeError:  # trio
        task = None
    if task is not None:
        assert task.cancelling() == 0
    with anyio.fail_after(1):
        await anyio.sleep(0.01)


@pytest.mark.anyio
async def test_a_tool_that_swallows_the_interruption_is_interrupted_again() -> None:
    async def stubborn(args: dict[str, Any], context: ToolContext) -> ToolResult:
        try:
            await anyio.sleep(5)
        except anyio.get_cancelled_exc_class():
            pass  # swallowed: the next await is interrupted again
        await anyio.sleep(5)
        return Ok("never")

    seen = Calls()
    registry = registry_with(seen.tool("t", stubborn, timeout_s=0.02))
    with anyio.fail_after(3):
        (outcome,) = await run(registry, ["t"])
    assert outcome.result == Err("Tool t timed out after 0.02 s", cause="timeout")


@pytest.mark.anyio
async def test_the_callers_own_cancellation_passes_through() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("t", _sleeping_ok(5)), seen.tool("u", _sleeping_ok(5)))
    for names in (["t"], ["t", "u"]):
        with anyio.move_on_after(0.05) as scope:
            await run(registry, names)
            pytest.fail("execute_parallel returned although its caller was cancelled")
        assert scope.cancelled_caught


@pytest.mark.anyio
async def test_an_abort_from_another_thread_interrupts_a_suspended_call() -> None:
    signal = AbortSignal()
    seen = Calls()
    registry = registry_with(seen.tool("t", _opens_then_sleeps("scope")))
    timer = threading.Timer(0.05, signal.abort, args=("user pressed stop",))
    timer.start()
    try:
        with anyio.fail_after(3):
            (outcome,) = await run(registry, ["t"], ctx(abort_signal=signal))
    finally:
        timer.cancel()
    assert outcome.result == Err("aborted: user pressed stop", cause="aborted")


@pytest.mark.anyio
async def test_a_tool_that_aborts_its_own_signal_is_answered_aborted() -> None:
    async def quitter(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.lowlevel.checkpoint()
        context.abort_signal.abort("changed my mind")
        await anyio.sleep(5)
        return Ok("never")

    seen = Calls()
    registry = registry_with(seen.tool("q", quitter), seen.tool("other", _sleeping_ok(5)))
    with anyio.fail_after(3):
        quit_, other = await run(registry, ["q", "other"])
    assert quit_.result == Err("aborted: changed my mind", cause="aborted")
    assert other.result == Err("aborted: changed my mind", cause="aborted")


@pytest.mark.anyio
async def test_a_tool_finishing_in_its_first_step_is_never_interrupted() -> None:
    signal = AbortSignal()
    seen = Calls()
    registry = registry_with(seen.tool("fast", returning("done"), timeout_s=0.001))
    (outcome,) = await run(registry, ["fast"], ctx(abort_signal=signal))
    assert outcome.result == Ok("done")
