"""Tasks: a call still running at its hand-off time answers pending with a task id and goes on
in the background; ``registry.tasks`` gets, waits for and cancels it (memory store; every store
in test_tasks_stores)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from exec_helpers import Calls, ctx

from toolwire.calls import ToolCall
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError, ToolDefinitionError
from toolwire.execution.hooks import AfterCall
from toolwire.execution.tasks import TASKS_SCOPE, TASKS_TOOL, Tasks, pending_task
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.stores import MemoryKeyValueBackend

pytestmark = pytest.mark.anyio


def _sleeping(seconds: float, value: str = "done") -> Any:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(seconds)
        return Ok(value)

    return body


def _registry(
    recorder: Calls, kv: MemoryKeyValueBackend | None = None, **tasks: Any
) -> ToolRegistry:
    kv = kv or MemoryKeyValueBackend()
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    return ToolRegistry(backends=backends, reducers=None, tasks=Tasks(**tasks) if tasks else None)


async def test_a_call_that_ends_in_time_is_no_task() -> None:
    recorder = Calls()
    registry = _registry(recorder)
    registry.register(recorder.tool("quick", _sleeping(0.0)))
    outcome = await registry.execute("quick", {}, ctx(hand_off_s=5))
    assert outcome.result == Ok("done")
    assert pending_task(outcome) is None
    assert registry.tasks.running == []


async def test_a_late_call_becomes_a_task_whose_result_is_kept() -> None:
    recorder, kv = Calls(), MemoryKeyValueBackend()
    registry = _registry(recorder, kv)
    registry.register(recorder.tool("build", _sleeping(0.2, "built")))
    outcome = await registry.execute("build", {}, ctx(hand_off_s=0.01), call_id="c7")
    task_id = pending_task(outcome)
    assert task_id is not None
    assert task_id.startswith("task-")
    assert isinstance(outcome.result, Ok)
    assert task_id in outcome.result.value
    info = await registry.tasks.get(task_id)
    assert info is not None
    assert info.status == "working"
    assert not info.done
    assert (info.tool_name, info.call_id, info.session_id) == ("build", "c7", "s1")
    ended = await registry.tasks.wait(task_id, timeout_s=10)
    assert ended is not None
    assert ended.status == "completed"
    assert ended.result == Ok("built")
    record = json.loads(await kv.scoped(TASKS_TOOL, TASKS_SCOPE).get(task_id) or "{}")
    assert record["status"] == "completed"
    assert record["result"]["value"] == "built"


async def test_a_long_running_tool_is_handed_off_after_the_registrys_time() -> None:
    recorder = Calls()
    registry = _registry(recorder, hand_off_s=0.01)
    registry.register(recorder.tool("crawl", _sleeping(0.2), long_running=True))
    registry.register(recorder.tool("other", _sleeping(0.05)))
    outcomes = await registry.execute_parallel(
        [ToolCall(id="a", name="crawl", args={}), ToolCall(id="b", name="other", args={})], ctx()
    )
    assert pending_task(outcomes[0]) is not None
    assert outcomes[1].result == Ok("done")  # no hand-off for a tool that is not long-running


async def test_a_failing_task_is_failed_and_the_result_went_through_the_after_hooks() -> None:
    async def fail(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(0.05)
        raise RuntimeError("disk full")

    seen: list[ToolResult] = []

    def after(call: AfterCall) -> None:
        seen.append(call.result)

    recorder = Calls()
    registry = _registry(recorder)
    registry.hooks.after_tool_call(after)
    registry.register(recorder.tool("build", fail))
    task_id = pending_task(await registry.execute("build", {}, ctx(hand_off_s=0)))
    assert task_id is not None
    info = await registry.tasks.wait(task_id, timeout_s=10)
    assert info is not None
    assert info.status == "failed"
    assert isinstance(info.result, Err)
    assert "disk full" in info.result.error
    assert seen == [info.result]


async def test_cancel_interrupts_the_tool() -> None:
    recorder = Calls()
    registry = _registry(recorder)
    registry.register(recorder.tool("build", _sleeping(60)))
    task_id = pending_task(await registry.execute("build", {}, ctx(hand_off_s=0.01)))
    assert task_id is not None
    info = await registry.tasks.cancel(task_id)
    assert info is not None
    assert info.status == "cancelled"
    assert isinstance(info.result, Err)
    assert "cancelled by registry.tasks.cancel" in info.result.error
    again = await registry.tasks.cancel(task_id)
    assert again is not None
    assert again.status == "cancelled"


async def test_the_callers_abort_stops_the_call_before_its_hand_off_only() -> None:
    recorder = Calls()
    registry = _registry(recorder)
    registry.register(recorder.tool("build", _sleeping(0.3)))
    context = ctx(hand_off_s=0.01)
    task_id = pending_task(await registry.execute("build", {}, context))
    assert task_id is not None
    context.abort_signal.abort("turn over")
    info = await registry.tasks.wait(task_id, timeout_s=10)
    assert info is not None
    assert info.status == "completed"
    aborted = ctx(hand_off_s=5)
    aborted.abort_signal.abort("stop")
    result = (await registry.execute("build", {}, aborted)).result
    assert isinstance(result, Err)
    assert result.error == "aborted: stop"


async def test_a_task_of_another_session_is_not_found() -> None:
    recorder = Calls()
    registry = _registry(recorder)
    registry.register(recorder.tool("build", _sleeping(0.05)))
    task_id = pending_task(await registry.execute("build", {}, ctx(hand_off_s=0)))
    assert task_id is not None
    assert await registry.tasks.get(task_id, session_id="intruder") is None
    assert await registry.tasks.cancel(task_id, session_id="intruder") is None
    info = await registry.tasks.wait(task_id, session_id="s1", timeout_s=10)
    assert info is not None
    assert info.status == "completed"
    assert [t.task_id for t in await registry.tasks.list(session_id="s1")] == [task_id]
    assert await registry.tasks.list(session_id="intruder") == []
    assert await registry.tasks.get("task-unknown") is None


async def test_wait_with_a_timeout_answers_the_state_so_far() -> None:
    recorder = Calls()
    registry = _registry(recorder)
    registry.register(recorder.tool("build", _sleeping(60)))
    task_id = pending_task(await registry.execute("build", {}, ctx(hand_off_s=0)))
    assert task_id is not None
    info = await registry.tasks.wait(task_id, timeout_s=0.05)
    assert info is not None
    assert info.status == "working"
    await registry.aclose()  # closing the registry cancels its tasks
    ended = await registry.tasks.get(task_id)
    assert ended is not None
    assert ended.status == "cancelled"


async def test_without_backends_tasks_live_in_the_process() -> None:
    recorder = Calls()
    registry = ToolRegistry(reducers=None)
    registry.register(recorder.tool("build", _sleeping(0.05)))
    task_id = pending_task(await registry.execute("build", {}, ctx(hand_off_s=0)))
    assert task_id is not None
    info = await registry.tasks.wait(task_id, timeout_s=10)
    assert info is not None
    assert info.result == Ok("done")


def test_bad_settings_say_how_to_fix_them() -> None:
    with pytest.raises(ConfigurationError):
        Tasks(poll_s=0)
    with pytest.raises(ConfigurationError):
        Tasks(hand_off_s=-1)
    with pytest.raises(ConfigurationError, match="compare_and_set"):
        Tasks(object())  # type: ignore[arg-type]
    with pytest.raises(ToolDefinitionError, match="long_running"):
        Calls().tool("x", long_running=1)
    with pytest.raises(ValueError, match="hand_off_s"):
        ToolContext(session_id="s", hand_off_s=-1)
