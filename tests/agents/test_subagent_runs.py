"""What toolwire enforces around a sub-agent: toolsets, depth, limits, abort, parallel runs,
progress, and the pipeline (hooks, budget) applying to the child's calls."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from agent_helpers import Blocker, RegistryFactory
from model_server import ModelServer, Recorded, completion, tool_call

from toolwire.calls import ToolCall
from toolwire.capabilities.kinds.subagent.seam import SubagentReport
from toolwire.context import ProgressEvent, ToolContext
from toolwire.execution.hooks import BeforeCall, BeforeDecision, HookRegistry, deny
from toolwire.results import Err, ErrorCode, Ok, ToolResult

pytestmark = pytest.mark.anyio


async def task(registry: object, ctx: ToolContext, **args: object) -> ToolResult:
    outcome = await registry.execute("task", args, ctx)  # type: ignore[attr-defined]
    return outcome.result


# ------------------------------------------------------------------ toolsets and depth


async def test_the_toolset_argument_picks_one_allowed_toolset(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("ok"))
    result = await task(make_registry(), ctx, description="p", prompt="Hi.", toolset="probe")
    assert isinstance(result, Ok)
    assert sorted(server.requests[0].tool_names) == ["chatty", "shout", "whoami"]
    assert result.structured is not None
    assert result.structured["toolset"] == "probe"


async def test_an_unknown_toolset_is_input_invalid_listing_the_choices(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    result = await task(make_registry(), ctx, description="p", prompt="Hi.", toolset="terminal")
    assert isinstance(result, Err)
    assert result.code is ErrorCode.INPUT_INVALID
    assert result.field == "toolset"
    assert "file, probe, delegation" in result.error
    assert server.requests == []


async def test_the_child_runs_as_depth_1_in_a_session_of_its_own_with_its_turn_budget(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion(None, tool_call("whoami", {}, "w1")), completion("fine"))
    registry = make_registry(turn_budget_chars=5_000)
    assert isinstance(await task(registry, ctx, description="who", prompt="Who are you?"), Ok)
    (message,) = server.requests[1].tool_messages()
    assert "agent=depth:1 session=parent:sub:call_0 budget=5000" in message["content"]


async def test_task_is_offered_below_the_depth_limit_and_withheld_at_it(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("a"), completion("b"))
    await task(make_registry(max_depth=2), ctx, description="d", prompt="Hi.")
    await task(make_registry(max_depth=1), ctx, description="d", prompt="Hi.")
    below, at_limit = server.requests
    assert "task" in below.tool_names
    assert "task" not in at_limit.tool_names
    assert "read_file" in at_limit.tool_names


async def test_an_agent_at_the_depth_limit_cannot_delegate(
    server: ModelServer, make_registry: RegistryFactory, work: object
) -> None:
    deep = ToolContext(session_id="s", agent_id="depth:2")
    result = await task(make_registry(max_depth=2), deep, description="d", prompt="Hi.")
    assert isinstance(result, Err)
    assert result.code is ErrorCode.NOT_AVAILABLE
    assert result.reason == "max_depth"
    assert "Maximum sub-agent depth (2)" in result.error
    assert server.requests == []


async def test_a_sub_agent_delegates_to_its_own_sub_agent_down_to_the_limit(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(
        completion(None, tool_call("task", {"description": "inner", "prompt": "Go deeper."})),
        completion(None, tool_call("whoami", {}, "w")),
        completion("inner answer"),
        completion("outer answer"),
    )
    result = await task(make_registry(max_depth=2), ctx, description="outer", prompt="Delegate.")
    assert isinstance(result, Ok)
    assert "outer answer" in result.value
    outer_1, inner_1, inner_2, outer_2 = server.requests
    assert "task" in outer_1.tool_names
    assert "task" not in inner_1.tool_names  # depth 2 is the limit
    assert inner_1.messages[1]["content"] == "Go deeper."
    assert "agent=depth:2" in inner_2.tool_messages()[0]["content"]
    assert "inner answer" in outer_2.tool_messages()[0]["content"]


# ------------------------------------------------------------------ parallel runs


async def test_two_tasks_in_one_batch_run_at_the_same_time(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    async def first(request: Recorded) -> dict[str, object]:
        await server.wait_for_requests(2)  # a serial run would never send the second: deadlock
        return completion("first done")

    async def second(request: Recorded) -> dict[str, object]:
        return completion("second done")

    server.add(first, second)
    calls = [
        ToolCall(id="a", name="task", args={"description": "one", "prompt": "First."}),
        ToolCall(id="b", name="task", args={"description": "two", "prompt": "Second."}),
    ]
    with anyio.fail_after(30):
        outcomes = await make_registry().execute_parallel(calls, ctx)
    values = [o.result.value for o in outcomes if isinstance(o.result, Ok)]
    assert len(values) == 2
    assert "first done" in values[0]
    assert "second done" in values[1]


# ------------------------------------------------------------------ abort and timeout


async def test_aborting_the_parent_stops_the_childs_http_request(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    async def hold(request: Recorded) -> dict[str, object]:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    server.add(hold)
    registry = make_registry()
    outcomes: list[ToolResult] = []
    async with anyio.create_task_group() as group:

        async def call() -> None:
            outcomes.append(await task(registry, ctx, description="slow", prompt="Think."))

        group.start_soon(call)
        await server.wait_for_requests(1)
        ctx.abort_signal.abort("user pressed stop")
    (result,) = outcomes
    assert isinstance(result, Err)
    assert "aborted: user pressed stop" in result.error
    with anyio.fail_after(10):
        await server.requests[0].disconnected.wait()  # the connection was dropped


async def test_aborting_the_parent_stops_the_childs_running_tool_calls(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    blocker = Blocker()
    server.add(completion(None, tool_call("wait_forever", {}, "w")))
    registry = make_registry(extra_tools=(blocker.tool(),))
    outcomes: list[ToolResult] = []
    async with anyio.create_task_group() as group:

        async def call() -> None:
            outcomes.append(await task(registry, ctx, description="wait", prompt="Wait."))

        group.start_soon(call)
        await blocker.started.wait()
        ctx.abort_signal.abort("enough")
    assert blocker.cancelled
    (result,) = outcomes
    assert isinstance(result, Err)
    assert "aborted: enough" in result.error


async def test_a_sub_agent_over_its_time_stops_and_says_so(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    blocker = Blocker()
    server.add(completion("working on it", tool_call("wait_forever", {}, "w")))
    registry = make_registry(extra_tools=(blocker.tool(),), timeout_s=0.5)
    result = await task(registry, ctx, description="slow", prompt="Wait.")
    assert isinstance(result, Err)
    assert result.cause == "timeout"
    assert "timed out after 0.5 s" in result.error
    assert "1 turn, 0 tool calls" in result.error
    assert "working on it" in result.error
    assert blocker.cancelled


# ------------------------------------------------------------------ progress and reports


async def test_progress_events_report_each_step(
    server: ModelServer,
    make_registry: RegistryFactory,
    ctx: ToolContext,
    events: list[ProgressEvent],
) -> None:
    server.add(completion(None, tool_call("whoami", {}, "w")), completion("done"))
    await task(make_registry(max_turns=4), ctx, description="steps", prompt="Go.")
    messages = [e.message for e in events]
    assert messages == [
        "steps: started at depth 1 with every allowed toolset",
        "steps: turn 1/4: calling whoami",
        "steps: turn 1/4: 1 tool call done",
        "steps: turn 2/4: answered",
    ]
    assert {e.tool_name for e in events} == {"task"}
    assert [e.percent for e in events] == [0.0, 25.0, 25.0, 50.0]


async def test_the_childs_tools_progress_reaches_the_parent_named_after_the_task(
    server: ModelServer,
    make_registry: RegistryFactory,
    ctx: ToolContext,
    events: list[ProgressEvent],
) -> None:
    server.add(completion(None, tool_call("chatty", {}, "c")), completion("done"))
    await task(make_registry(), ctx, description="talk", prompt="Go.")
    forwarded = [e for e in events if "›" in e.message]
    assert [(e.message, e.audience) for e in forwarded] == [("talk › chatty: halfway", "dashboard")]


async def test_the_child_keeps_the_parents_personality_and_team(
    server: ModelServer, make_registry: RegistryFactory, work: object
) -> None:
    parent = ToolContext(session_id="s", personality_id="researcher", team_id="red")
    server.add(completion(None, tool_call("whoami", {}, "w")), completion("ok"))
    await task(make_registry(), parent, description="p", prompt="Go.")
    (message,) = server.requests[1].tool_messages()
    assert "personality=researcher team=red turn=1" in message["content"]


async def test_progress_reaches_the_parent_registrys_observers(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("done"))
    registry = make_registry()
    seen: list[str] = []
    registry.hooks.observe(lambda event: seen.append(event.name))
    await task(registry, ctx, description="observed", prompt="Go.")
    assert seen.count("progress") == 2


async def test_on_report_receives_every_report_even_a_failed_one(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    reports: list[SubagentReport] = []
    server.add(completion(None, tool_call("whoami", {}, "w")))
    registry = make_registry(max_turns=1, on_report=reports.append)
    await task(registry, ctx, description="count", prompt="Go.")
    (report,) = reports
    assert report.stop == "max_turns"
    assert report.turns == 1
    assert report.cost_usd == pytest.approx((100 * 2.0 + 20 * 8.0) / 1_000_000)


# ------------------------------------------------------------------ the child pipeline


async def test_the_hosts_hooks_apply_to_the_childs_calls(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    hooks = HookRegistry()

    def no_reading(call: BeforeCall) -> BeforeDecision:
        return deny("reading is off today")

    hooks.before_tool_call(no_reading, tools=["read_file"])
    server.add(completion(None, tool_call("read_file", {"path": "x"}, "r")), completion("ok"))
    await task(make_registry(hooks=hooks), ctx, description="h", prompt="Read.")
    (message,) = server.requests[1].tool_messages()
    assert "reading is off today" in message["content"]


async def test_the_turn_budget_trims_the_childs_tool_output(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion(None, tool_call("shout", {"size": 50_000}, "s")), completion("ok"))
    await task(make_registry(turn_budget_chars=2_000), ctx, description="b", prompt="Shout.")
    (message,) = server.requests[1].tool_messages()
    assert "[truncated — 50000 chars total]" in message["content"]
    assert len(message["content"]) < 3_000


async def test_without_hooks_of_the_hosts_the_child_still_has_the_command_guard(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(
        completion(None, tool_call("terminal", {"command": "rm -rf /"}, "t")), completion("no")
    )
    await task(make_registry(toolsets=("terminal",)), ctx, description="rm", prompt="Clean up.")
    (message,) = server.requests[1].tool_messages()
    assert "Command blocked" in message["content"]


def _running(token: str) -> bool:
    """Whether a process whose command line holds ``token`` runs (found by command line, not
    pid: the process backend may run commands in a PID namespace of their own)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token.encode() in (entry / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


async def test_aborting_the_parent_kills_the_processes_of_the_childs_running_command(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext, work: Path
) -> None:
    token = f"{300 + os.getpid() % 1000}.{os.getpid()}"  # a sleep no other test starts
    started = work / "started"
    command = f"sleep {token} & touch {started}; wait"
    server.add(completion(None, tool_call("terminal", {"command": command}, "t")))
    registry = make_registry(toolsets=("terminal",))
    results: list[ToolResult] = []
    async with anyio.create_task_group() as group:

        async def call() -> None:
            results.append(await task(registry, ctx, description="sleep", prompt="Sleep."))

        group.start_soon(call)
        with anyio.fail_after(30):
            while not started.exists():
                await anyio.sleep(0.02)
        assert _running(token)
        ctx.abort_signal.abort("stop the sleeper")
    assert isinstance(results[0], Err)
    with anyio.fail_after(10):
        while _running(token):
            await anyio.sleep(0.02)
