"""execute_parallel: one outcome per call in input order, validation, errors, reducers, seams."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from exec_helpers import Calls, ctx, registry_with, returning, run

from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities import attachments, network, storage
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import Attachment, NetworkPolicy
from toolwire.context import ProgressEvent, ToolContext
from toolwire.errors import AbortedError
from toolwire.execution.finish import REDUCE_OFF_LOOP_CHARS
from toolwire.execution.hooks import replace_args
from toolwire.reducers._registry import ReducerContext, ReducerRegistry
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.stores import MemoryKeyValueBackend
from toolwire.tools import define_tool

QTY = {
    "type": "object",
    "properties": {"qty": {"type": "integer"}},
    "required": ["qty"],
    "additionalProperties": False,
}


# -- outcomes ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_an_empty_batch_gives_no_outcomes() -> None:
    assert await registry_with().execute_parallel([], ctx()) == []


@pytest.mark.anyio
async def test_outcomes_come_back_in_input_order_whatever_finishes_first() -> None:
    def sleeping(delay: float) -> Any:
        async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
            await anyio.sleep(delay)
            return Ok(str(delay))

        return body

    seen = Calls()
    registry = registry_with(
        seen.tool("slow", sleeping(0.06)), seen.tool("mid", sleeping(0.03)), seen.tool("fast")
    )
    outcomes = await run(registry, ["slow", "mid", "fast", "nope"])
    assert [(o.tool_call_id, o.name) for o in outcomes] == [
        ("c0", "slow"),
        ("c1", "mid"),
        ("c2", "fast"),
        ("c3", "nope"),
    ]
    assert [o.result for o in outcomes[:3]] == [Ok("0.06"), Ok("0.03"), Ok("fast ok")]


@pytest.mark.anyio
async def test_calls_in_a_batch_run_concurrently() -> None:
    arrived = {"a": anyio.Event(), "b": anyio.Event()}

    def meet(me: str, other: str) -> Any:
        async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
            arrived[me].set()
            await arrived[other].wait()  # deadlocks unless both run at once
            return Ok(me)

        return body

    seen = Calls()
    registry = registry_with(seen.tool("a", meet("a", "b")), seen.tool("b", meet("b", "a")))
    with anyio.fail_after(5):
        outcomes = await run(registry, ["a", "b"])
    assert [o.result for o in outcomes] == [Ok("a"), Ok("b")]


@pytest.mark.anyio
async def test_each_outcome_carries_its_own_duration() -> None:
    async def slow(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(0.2)
        return Ok("slow")

    seen = Calls()
    registry = registry_with(seen.tool("slow", slow), seen.tool("fast"))
    slow_outcome, fast_outcome = await run(registry, ["slow", "fast"])
    assert slow_outcome.duration_ms >= 200
    assert 0 <= fast_outcome.duration_ms < slow_outcome.duration_ms


@pytest.mark.anyio
async def test_mapping_calls_are_accepted_with_args_or_arguments() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("order", schema=QTY))
    calls: list[Mapping[str, Any]] = [
        {"id": "a", "name": "order", "arguments": '{"qty": 1}'},
        {"id": "b", "name": "order", "args": {"qty": 2}},
        {"name": "order", "args": {"qty": 3}},
    ]
    outcomes = await registry.execute_parallel(calls, ctx())
    assert [o.tool_call_id for o in outcomes] == ["a", "b", "call_2"]
    ran = sorted(args["qty"] for _, args, _ in seen.log)  # concurrent: any order
    assert ran == [1, 2, 3]


@pytest.mark.anyio
async def test_the_execute_shortcut_runs_one_call() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("order", returning("done"), schema=QTY))
    outcome = await registry.execute("order", {"qty": 1}, ctx(), call_id="x9")
    assert outcome == CallOutcome(
        tool_call_id="x9",
        name="order",
        result=Ok("done"),
        duration_ms=outcome.duration_ms,
        args={"qty": 1},
    )


@pytest.mark.anyio
async def test_outcomes_carry_the_arguments_the_tool_ran_with() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("order", schema=QTY))
    registry.hooks.before_tool_call(
        lambda call: replace_args({"qty": 99}) if call.args["qty"] == 0 else None
    )
    outcomes = await registry.execute_parallel(
        [
            ToolCall(id="a", name="order", args='{"qty": 5}'),
            ToolCall(id="b", name="order", args={"qty": 0}),
            ToolCall(id="c", name="order", args={"qty": "x"}),
            ToolCall(id="d", name="missing", args={"qty": 1}),
        ],
        ctx(),
    )
    assert [o.args for o in outcomes] == [{"qty": 5}, {"qty": 99}, None, None]


@pytest.mark.anyio
async def test_the_tool_sees_the_callers_context_with_its_call_id_and_budget() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("t"))
    caller = ctx(personality_id="coder", current_turn=3, platform="cli")
    await run(registry, ["t", "t"], caller)
    first, second = sorted(
        (seen_ctx for _, _, seen_ctx in seen.log), key=lambda c: str(c.tool_call_id)
    )
    assert (first.tool_call_id, second.tool_call_id) == ("c0", "c1")
    assert first.result_budget_chars == 40_000
    assert (first.session_id, first.personality_id, first.current_turn, first.platform) == (
        "s1",
        "coder",
        3,
        "cli",
    )
    assert first.abort_signal is caller.abort_signal


# -- validation -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_arguments_as_json_text_and_as_a_dict_are_the_same() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("order", schema=QTY))
    await registry.execute("order", '{"qty": 2}', ctx())
    await registry.execute("order", {"qty": 2}, ctx())
    assert [args for _, args, _ in seen.log] == [{"qty": 2}, {"qty": 2}]


@pytest.mark.anyio
async def test_invalid_arguments_are_input_invalid_naming_the_field_and_never_run() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("order", schema=QTY))
    outcome = await registry.execute("order", {"qty": "sk-live-0123456789abcdef"}, ctx())
    assert outcome.result == Err(
        "Invalid arguments for order: qty: expected integer",
        ErrorCode.INPUT_INVALID,
        field="qty",
    )
    assert seen.log == []


@pytest.mark.anyio
async def test_malformed_json_is_input_invalid_and_never_runs_with_empty_arguments() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("anything"))
    outcome = await registry.execute("anything", '{"qty": 1', ctx())
    assert isinstance(outcome.result, Err)
    assert outcome.result.code == ErrorCode.INPUT_INVALID
    assert outcome.result.error.startswith("Invalid arguments for anything: (arguments): malformed")
    assert outcome.result.field is None
    assert seen.log == []


@pytest.mark.anyio
async def test_a_broken_validator_denies() -> None:
    class Broken:
        def validate(self, raw: object) -> dict[str, Any]:
            raise RuntimeError("validator bug")

    seen = Calls()
    registry = registry_with(seen.tool("t", validator=Broken()))
    outcome = await registry.execute("t", {}, ctx())
    assert outcome.result == Err(
        "Invalid arguments for t: the validator failed (RuntimeError)", ErrorCode.INPUT_INVALID
    )
    assert seen.log == []


# -- what tools do ----------------------------------------------------------------------------


async def _outcome_of(body: Any) -> ToolResult:
    seen = Calls()
    (outcome,) = await run(registry_with(seen.tool("t", body)), ["t"])
    return outcome.result


@pytest.mark.anyio
async def test_an_exception_becomes_execution_failed_with_its_message() -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        raise FileNotFoundError("no such file: a.txt")

    assert await _outcome_of(body) == Err(
        "no such file: a.txt", ErrorCode.EXECUTION_FAILED, cause="FileNotFoundError"
    )


@pytest.mark.anyio
async def test_an_exception_without_a_message_is_named_by_its_type() -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        raise KeyError()

    assert await _outcome_of(body) == Err("KeyError", ErrorCode.EXECUTION_FAILED, cause="KeyError")


@pytest.mark.anyio
async def test_a_single_exception_group_reports_the_inner_message() -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        async def child() -> None:
            raise ValueError("inner problem")

        async with anyio.create_task_group() as group:
            group.start_soon(child)
        return Ok("unreachable")

    result = await _outcome_of(body)
    assert isinstance(result, Err)
    assert result.error == "inner problem"


@pytest.mark.anyio
async def test_sys_exit_in_a_tool_does_not_end_the_host() -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        sys.exit(3)

    assert await _outcome_of(body) == Err("3", ErrorCode.EXECUTION_FAILED, cause="SystemExit")


class Unusual(BaseException):
    pass


@pytest.mark.anyio
async def test_a_base_exception_from_a_tool_is_a_result() -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        raise Unusual("odd")

    assert await _outcome_of(body) == Err("odd", ErrorCode.EXECUTION_FAILED, cause="Unusual")


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # asyncio's own tasks
@pytest.mark.anyio
async def test_a_tool_awaiting_an_inner_task_it_cancelled_fails_alone() -> None:
    finished: list[str] = []

    async def self_cancelling(args: dict[str, Any], context: ToolContext) -> ToolResult:
        inner = asyncio.create_task(asyncio.sleep(30))
        await asyncio.sleep(0)
        inner.cancel()
        await inner  # raises CancelledError here, though nobody cancelled the call
        return Ok("unreachable")

    async def steady(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(0.05)
        finished.append("steady")
        return Ok("steady")

    seen = Calls()
    registry = registry_with(seen.tool("odd", self_cancelling), seen.tool("steady", steady))
    with anyio.fail_after(5):
        outcomes = await run(registry, ["odd", "steady"])
    assert outcomes[0].result == Err(
        "CancelledError", ErrorCode.EXECUTION_FAILED, cause="CancelledError"
    )
    assert outcomes[1].result == Ok("steady")
    assert finished == ["steady"]  # finished before the batch returned, not orphaned


@pytest.mark.anyio
async def test_returning_something_other_than_a_result_is_execution_failed() -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> Any:
        return {"not": "a result"}

    assert await _outcome_of(body) == Err(
        "Tool t returned dict, not a ToolResult", ErrorCode.EXECUTION_FAILED, cause="bad_result"
    )


@pytest.mark.anyio
async def test_a_tool_raising_aborted_error_is_reported_as_aborted() -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        raise AbortedError("budget exhausted")

    assert await _outcome_of(body) == Err(
        "aborted: budget exhausted", ErrorCode.EXECUTION_FAILED, cause="aborted"
    )


@pytest.mark.anyio
async def test_an_ok_whose_value_is_not_text_is_execution_failed_naming_the_type() -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Ok(12345)  # type: ignore[arg-type]

    assert await _outcome_of(body) == Err(
        "Tool t returned an Ok whose value is int, not str",
        ErrorCode.EXECUTION_FAILED,
        cause="bad_result",
    )


@pytest.mark.anyio
@pytest.mark.parametrize("message", ["", "   ", None])
async def test_an_err_without_a_message_is_execution_failed(message: Any) -> None:
    async def body(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Err(message, ErrorCode.NOT_AVAILABLE)

    assert await _outcome_of(body) == Err(
        "Tool t returned an Err without a message", ErrorCode.EXECUTION_FAILED, cause="bad_result"
    )


@pytest.mark.anyio
async def test_a_plain_function_execute_is_accepted() -> None:
    def execute(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Ok("sync")

    tool = define_tool(name="plain", description="Plain.", schema={}, execute=execute)  # type: ignore[arg-type]
    (outcome,) = await run(registry_with(tool), ["plain"])
    assert outcome.result == Ok("sync")


@pytest.mark.anyio
async def test_tools_may_open_their_own_cancel_scopes_and_task_groups() -> None:
    async def scoped(args: dict[str, Any], context: ToolContext) -> ToolResult:
        with anyio.fail_after(5):
            await anyio.lowlevel.checkpoint()
        return Ok("scoped")

    async def grouped(args: dict[str, Any], context: ToolContext) -> ToolResult:
        done: list[int] = []

        async def child(n: int) -> None:
            await anyio.sleep(0.01)
            done.append(n)

        async with anyio.create_task_group() as group:
            group.start_soon(child, 1)
            group.start_soon(child, 2)
        return Ok(str(sorted(done)))

    seen = Calls()
    registry = registry_with(seen.tool("scoped", scoped), seen.tool("grouped", grouped))
    with anyio.fail_after(5):
        outcomes = await run(registry, ["scoped", "grouped", "scoped"])
        single = await run(registry, ["grouped"])
    assert [o.result for o in outcomes] == [Ok("scoped"), Ok("[1, 2]"), Ok("scoped")]
    assert single[0].result == Ok("[1, 2]")


# -- reducers ---------------------------------------------------------------------------------


class Reducer:
    def __init__(self, tool_name: str, reduce: Any) -> None:
        self.tool_name = tool_name
        self._reduce = reduce
        self.seen: list[tuple[ToolResult, ReducerContext]] = []

    def reduce(self, result: ToolResult, context: ReducerContext) -> ToolResult:
        self.seen.append((result, context))
        return self._reduce(result)  # type: ignore[no-any-return]


def _with_reducer(reducer: Reducer, body: Any = None) -> ToolRegistry:
    reducers = ReducerRegistry()
    reducers.register(reducer)
    seen = Calls()
    return registry_with(seen.tool(reducer.tool_name, body), reducers=reducers)


@pytest.mark.anyio
async def test_a_reducer_replaces_the_result_and_sees_args_and_turn() -> None:
    reducer = Reducer("t", lambda r: Ok("reduced"))
    registry = _with_reducer(reducer)
    outcome = await registry.execute("t", {"k": 1}, ctx(current_turn=4))
    assert outcome.result == Ok("reduced")
    ((result, context),) = reducer.seen
    assert result == Ok("t ok")
    assert (dict(context.args), context.turn_count) == ({"k": 1}, 4)


@pytest.mark.anyio
async def test_a_reducer_that_raises_leaves_the_result_as_it_was() -> None:
    def explode(result: ToolResult) -> ToolResult:
        raise RuntimeError("reducer bug")

    (outcome,) = await run(_with_reducer(Reducer("t", explode)), ["t"])
    assert outcome.result == Ok("t ok")


@pytest.mark.anyio
async def test_a_reducer_returning_a_non_result_leaves_the_result() -> None:
    (outcome,) = await run(_with_reducer(Reducer("t", lambda r: "text")), ["t"])
    assert outcome.result == Ok("t ok")


@pytest.mark.anyio
async def test_reducers_see_error_results_too() -> None:
    async def fail(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Err("exit 1", ErrorCode.EXECUTION_FAILED)

    reducer = Reducer("t", lambda r: Err("reduced: " + r.error, ErrorCode.EXECUTION_FAILED))
    (outcome,) = await run(_with_reducer(reducer, fail), ["t"])
    assert outcome.result == Err("reduced: exit 1", ErrorCode.EXECUTION_FAILED)


@pytest.mark.anyio
async def test_a_reducer_for_another_tool_leaves_results_alone() -> None:
    reducers = ReducerRegistry()
    other = Reducer("other", lambda r: Ok("reduced"))
    reducers.register(other)
    seen = Calls()
    registry = registry_with(seen.tool("t"), reducers=reducers)
    (outcome,) = await run(registry, ["t"])
    assert outcome.result == Ok("t ok")
    assert other.seen == []


@pytest.mark.anyio
@pytest.mark.parametrize("size", [100, REDUCE_OFF_LOOP_CHARS + 1])
async def test_a_large_result_is_reduced_off_the_event_loop(size: int) -> None:
    threads: list[int] = []

    def reduce(result: ToolResult) -> ToolResult:
        threads.append(threading.get_ident())
        return Ok("reduced")

    loop_thread = threading.get_ident()
    registry = _with_reducer(Reducer("t", reduce), returning("x" * size))
    for hooked in (False, True):  # the short way and the way with observers
        if hooked:
            registry.hooks.observe(lambda event: None)
        (outcome,) = await run(registry, ["t"])
        assert outcome.result == Ok("reduced")
    on_loop = [thread == loop_thread for thread in threads]
    assert on_loop == [size <= REDUCE_OFF_LOOP_CHARS] * 2


# -- capability seams -------------------------------------------------------------------------


def _kv_backends() -> CapabilityBackends:
    return CapabilityBackends(kv_store_factory=MemoryKeyValueBackend().scoped)


@pytest.mark.anyio
async def test_a_declared_seam_is_resolved_and_scoped_to_the_session() -> None:
    async def count(args: dict[str, Any], context: ToolContext) -> ToolResult:
        assert context.kv_store is not None
        assert context.scoped_fetch is None  # not declared
        value = await context.kv_store.increment("n")
        return Ok(str(value))

    tool = Calls().tool("counter", count, capabilities=[storage("session")])
    registry = registry_with(tool, backends=_kv_backends())
    first = await registry.execute("counter", {}, ctx(session_id="a"))
    second = await registry.execute("counter", {}, ctx(session_id="a"))
    other = await registry.execute("counter", {}, ctx(session_id="b"))
    assert [o.result for o in (first, second, other)] == [Ok("1"), Ok("2"), Ok("1")]


@pytest.mark.anyio
async def test_a_tool_that_declares_nothing_gets_no_seams_from_the_callers_context() -> None:
    leaked_store = MemoryKeyValueBackend().scoped("caller", "session:x")

    async def snoop(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Ok(str(context.kv_store))

    registry = registry_with(Calls().tool("pure", snoop), backends=_kv_backends())
    outcome = await registry.execute("pure", {}, ctx(kv_store=leaked_store))
    assert outcome.result == Ok("None")


@pytest.mark.anyio
async def test_the_personality_network_policy_on_the_context_reaches_the_resolver() -> None:
    from toolwire.capabilities.kinds.network import SafeFetcher

    async def hosts(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Ok(repr(getattr(context.scoped_fetch, "allowed_hosts", None)))

    fetcher = SafeFetcher()
    try:
        backends = CapabilityBackends(
            fetcher=fetcher, network_policy=NetworkPolicy(allow=("default.example",))
        )
        registry = registry_with(
            Calls().tool("web", hosts, capabilities=[network(["*"])]), backends=backends
        )
        personal = ctx(network_policy=NetworkPolicy(allow=("personal.example",)))
        outcome = await registry.execute("web", {}, personal)
    finally:
        await fetcher.aclose()
    assert outcome.result == Ok("('personal.example',)")


@pytest.mark.anyio
async def test_turn_attachments_reach_a_tool_that_declared_their_kind() -> None:
    async def listing(args: dict[str, Any], context: ToolContext) -> ToolResult:
        assert context.attachments is not None
        return Ok(",".join(a.ref for a in context.attachments.list()))

    photo = Attachment(ref="a1", kind="image", url="file:///tmp/a1.png")
    notes = Attachment(ref="a2", kind="file", url="file:///tmp/a2.txt")
    registry = registry_with(
        Calls().tool("images", listing, capabilities=[attachments(["image"])]),
        backends=CapabilityBackends(),
    )
    outcomes = await registry.execute_parallel(
        [ToolCall(id="1", name="images")], ctx(), turn_attachments=[photo, notes]
    )
    assert outcomes[0].result == Ok("a1")


@pytest.mark.anyio
async def test_a_nested_batch_keeps_its_own_context_and_the_outer_one_is_untouched() -> None:
    inner_events: list[ProgressEvent] = []
    outer_events: list[ProgressEvent] = []

    async def leaf(args: dict[str, Any], context: ToolContext) -> ToolResult:
        context.emit(ProgressEvent(tool_name="leaf", message=context.session_id))
        await anyio.sleep(0.01)
        return Ok(context.session_id)

    async def outer(args: dict[str, Any], context: ToolContext) -> ToolResult:
        inner_ctx = ctx(session_id="inner", emit=inner_events.append)
        (nested,) = await registry.execute_parallel([ToolCall(id="n", name="leaf")], inner_ctx)
        context.emit(ProgressEvent(tool_name="outer", message=context.session_id))
        return Ok(f"{nested.result.value}/{context.session_id}")  # type: ignore[union-attr]

    seen = Calls()
    registry = registry_with(seen.tool("outer", outer), seen.tool("leaf", leaf))
    registry.hooks.observe(lambda event: None)  # progress goes through the observer wiring too
    outcomes = await run(
        registry, ["outer", "leaf"], ctx(session_id="top", emit=outer_events.append)
    )
    assert [o.result for o in outcomes] == [Ok("inner/top"), Ok("top")]
    assert [e.message for e in inner_events] == ["inner"]
    assert sorted(e.message for e in outer_events) == ["top", "top"]


@pytest.mark.anyio
async def test_a_failing_resolver_denies_the_call() -> None:
    def broken_factory(tool: str, scope_id: str) -> Any:
        raise ConnectionError("kv down")

    seen = Calls()
    registry = registry_with(
        seen.tool("counter", capabilities=[storage("session")]),
        backends=CapabilityBackends(kv_store_factory=broken_factory),
    )
    outcome = await registry.execute("counter", {}, ctx())
    assert outcome.result == Err(
        "Tool counter: its capabilities could not be resolved (kv down)",
        ErrorCode.NOT_AVAILABLE,
        reason="capability_resolution_failed",
    )
    assert seen.log == []


# -- never raises -----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_hook_or_reducer_calling_sys_exit_still_answers_every_call() -> None:
    def exiting(*_: Any) -> Any:
        sys.exit("plugin gave up")

    for install in ("before", "after", "reducer"):
        seen = Calls()
        reducers = ReducerRegistry()
        if install == "reducer":
            reducers.register(Reducer("t", exiting))
        registry = registry_with(seen.tool("t"), seen.tool("other"), reducers=reducers)
        if install == "before":
            registry.hooks.before_tool_call(exiting, tools=["t"])
        if install == "after":
            registry.hooks.after_tool_call(exiting, tools=["t"])
        outcomes = await run(registry, ["t", "other"])
        result = outcomes[0].result
        assert isinstance(result, Err), install
        assert result.error.startswith("internal error while running t: ")
        assert outcomes[1].result == Ok("other ok")
        if install == "before":
            assert seen.names == ["other"]


@pytest.mark.anyio
async def test_odd_calls_each_get_an_outcome_and_nothing_raises() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("order", schema=QTY))
    odd: list[Any] = [
        None,
        5,
        {"id": "m1", "name": "order", "args": 7},
        {"id": "m2", "name": "order", "args": None},
        {"id": "m3", "name": "order", "args": ["qty", 1]},
        ToolCall(id="t1", name=["order"], args="{}"),  # type: ignore[arg-type]
        ToolCall(id="t2", name="order", args=b'{"qty": 1}'),  # type: ignore[arg-type]
        ToolCall(id="t3", name="order", args="[" * 50_000),
        ToolCall(id="t4", name="order", args={"qty": 1}),
    ]
    outcomes = await registry.execute_parallel(odd, ctx())
    assert len(outcomes) == len(odd)
    assert [o.result.ok for o in outcomes] == [False] * 6 + [True, False, True]
    assert all(o.result.error for o in outcomes if isinstance(o.result, Err))
