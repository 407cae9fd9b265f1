"""Observers and before/after handlers: order, deny, modify, fail closed, events."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import pytest

from toolwire.context import ProgressEvent, ToolContext
from toolwire.errors import RegistrationError
from toolwire.execution.hooks import (
    AfterCall,
    BeforeCall,
    BeforeDecision,
    HookRegistry,
    ToolEvent,
    deny,
    replace_args,
)
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tools import Tool, define_tool

CTX = ToolContext(session_id="s")
QTY_SCHEMA = {
    "type": "object",
    "properties": {"qty": {"type": "integer"}},
    "required": ["qty"],
    "additionalProperties": False,
}


def _before(args: Mapping[str, Any] | None = None, name: str = "t") -> BeforeCall:
    return BeforeCall(tool_name=name, tool_call_id="c1", args=args or {}, ctx=CTX)


def _after(result: ToolResult, name: str = "t") -> AfterCall:
    return AfterCall(
        tool_name=name, tool_call_id="c1", args={}, result=result, duration_ms=1.0, ctx=CTX
    )


class Recorder:
    """A tool that records the arguments it ran with."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append(dict(args))
        return Ok(f"qty={args.get('qty')}")


def _registry(*tools: Tool) -> ToolRegistry:
    registry = ToolRegistry(reducers=None)
    registry.register_all(tools)
    return registry


def _qty_tool(recorder: Recorder, name: str = "order") -> Tool:
    return define_tool(name=name, description="Order.", schema=QTY_SCHEMA, execute=recorder)


# -- registration -----------------------------------------------------------------------------


def test_a_fresh_registry_has_no_hooks() -> None:
    hooks = HookRegistry()
    assert (hooks.has_before, hooks.has_after, hooks.has_observers) == (False, False, False)


def test_a_non_callable_handler_is_refused() -> None:
    with pytest.raises(RegistrationError, match="callable"):
        HookRegistry().before_tool_call("nope")  # type: ignore[arg-type]


def test_tools_given_as_a_string_is_refused() -> None:
    with pytest.raises(RegistrationError, match="list of tool names"):
        HookRegistry().after_tool_call(lambda call: None, tools="terminal")


def test_removers_unregister_and_are_idempotent() -> None:
    hooks = HookRegistry()
    remove_before = hooks.before_tool_call(lambda call: None)
    remove_after = hooks.after_tool_call(lambda call: None)
    remove_observer = hooks.observe(lambda event: None)
    for remove in (remove_before, remove_after, remove_observer):
        remove()
        remove()
    assert (hooks.has_before, hooks.has_after, hooks.has_observers) == (False, False, False)


def test_deny_without_a_reason_still_gives_one() -> None:
    assert deny("").deny == "denied by a hook"


def test_replace_args_copies_the_mapping() -> None:
    args = {"a": 1}
    decision = replace_args(args)
    args["a"] = 2
    assert decision.args == {"a": 1}


# -- before handlers --------------------------------------------------------------------------


@pytest.mark.anyio
async def test_before_handlers_run_by_priority_then_registration_order() -> None:
    hooks = HookRegistry()
    order: list[str] = []
    hooks.before_tool_call(lambda call: order.append("late"), priority=10)
    hooks.before_tool_call(lambda call: order.append("first-zero"))
    hooks.before_tool_call(lambda call: order.append("early"), priority=-5)
    hooks.before_tool_call(lambda call: order.append("second-zero"))
    await hooks.run_before(_before())
    assert order == ["early", "first-zero", "second-zero", "late"]


@pytest.mark.anyio
async def test_modifications_chain() -> None:
    hooks = HookRegistry()
    hooks.before_tool_call(lambda call: replace_args({**call.args, "a": 1}))
    hooks.before_tool_call(lambda call: replace_args({**call.args, "b": call.args["a"] + 1}))
    outcome = await hooks.run_before(_before({"x": 0}))
    assert outcome.args == {"x": 0, "a": 1, "b": 2}
    assert outcome.denied is None


@pytest.mark.anyio
async def test_deny_beats_an_earlier_modification_and_stops_the_chain() -> None:
    hooks = HookRegistry()
    later: list[str] = []
    hooks.before_tool_call(lambda call: replace_args({"changed": True}))
    hooks.before_tool_call(lambda call: deny("not today"))
    hooks.before_tool_call(lambda call: later.append("ran"))
    outcome = await hooks.run_before(_before())
    assert (outcome.denied, outcome.args) == ("not today", None)
    assert later == []


@pytest.mark.anyio
async def test_a_handler_that_raises_denies_naming_the_hook() -> None:
    hooks = HookRegistry()

    def guard(call: BeforeCall) -> None:
        raise RuntimeError("policy service down")

    hooks.before_tool_call(guard)
    outcome = await hooks.run_before(_before(name="terminal"))
    assert outcome.denied == (
        "Tool terminal was blocked: the 'guard' hook failed (RuntimeError: policy service down)"
    )


@pytest.mark.anyio
async def test_a_denial_with_an_empty_reason_still_gives_one() -> None:
    hooks = HookRegistry()
    hooks.before_tool_call(lambda call: BeforeDecision(deny="  "), name="terse")
    assert (await hooks.run_before(_before())).denied == "denied by the 'terse' hook"


@pytest.mark.anyio
async def test_a_handler_returning_something_else_denies() -> None:
    hooks = HookRegistry()
    hooks.before_tool_call(lambda call: True, name="sloppy")  # type: ignore[arg-type,return-value]
    outcome = await hooks.run_before(_before())
    assert (
        outcome.denied
        == "Tool t was blocked: the 'sloppy' hook returned bool, not a BeforeDecision"
    )


@pytest.mark.anyio
async def test_async_before_handlers_are_awaited() -> None:
    hooks = HookRegistry()

    async def guard(call: BeforeCall) -> BeforeDecision:
        return deny(f"no {call.tool_name}")

    hooks.before_tool_call(guard)
    assert (await hooks.run_before(_before(name="rm"))).denied == "no rm"


@pytest.mark.anyio
async def test_handlers_limited_to_tools_skip_the_others() -> None:
    hooks = HookRegistry()
    hooks.before_tool_call(lambda call: deny("terminal is off"), tools=["terminal"])
    assert (await hooks.run_before(_before(name="read_file"))).denied is None
    assert (await hooks.run_before(_before(name="terminal"))).denied == "terminal is off"


@pytest.mark.anyio
async def test_no_decision_changes_nothing() -> None:
    hooks = HookRegistry()
    hooks.before_tool_call(lambda call: None)
    hooks.before_tool_call(lambda call: BeforeDecision())
    outcome = await hooks.run_before(_before({"a": 1}))
    assert (outcome.denied, outcome.args) == (None, None)


# -- after handlers ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_after_handlers_chain_replacements() -> None:
    hooks = HookRegistry()
    hooks.after_tool_call(lambda call: Ok(call.result.value + "1"))  # type: ignore[union-attr]
    hooks.after_tool_call(lambda call: Ok(call.result.value + "2"))  # type: ignore[union-attr]
    assert await hooks.run_after(_after(Ok("v"))) == Ok("v12")


@pytest.mark.anyio
async def test_a_raising_after_handler_keeps_the_result_and_reports_tool_error() -> None:
    hooks = HookRegistry()
    events: list[ToolEvent] = []
    hooks.observe(events.append)

    def broken(call: AfterCall) -> ToolResult:
        raise ValueError("oops")

    hooks.after_tool_call(broken)
    hooks.after_tool_call(lambda call: Ok("second still runs"))
    assert await hooks.run_after(_after(Ok("original"))) == Ok("second still runs")
    (event,) = events
    assert (event.name, event.tool_name, event.tool_call_id) == ("tool:error", "t", "c1")
    assert event.data["error"] == "after hook 'broken' failed: oops"
    assert event.data["hook"] == "broken"


@pytest.mark.anyio
async def test_an_after_handler_returning_a_non_result_is_ignored_and_reported() -> None:
    hooks = HookRegistry()
    events: list[ToolEvent] = []
    hooks.observe(events.append)
    hooks.after_tool_call(lambda call: "not a result", name="sloppy")  # type: ignore[arg-type,return-value]
    assert await hooks.run_after(_after(Ok("original"))) == Ok("original")
    assert events[0].name == "tool:error"
    assert "sloppy" in events[0].data["error"]


@pytest.mark.anyio
async def test_async_after_handlers_are_awaited_and_none_keeps_the_result() -> None:
    hooks = HookRegistry()

    async def keep(call: AfterCall) -> None:
        return None

    async def redact(call: AfterCall) -> ToolResult:
        return Ok("[redacted]")

    hooks.after_tool_call(keep)
    assert await hooks.run_after(_after(Ok("secret"))) == Ok("secret")
    hooks.after_tool_call(redact)
    assert await hooks.run_after(_after(Ok("secret"))) == Ok("[redacted]")


# -- observers --------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_observers_sync_and_async_receive_events_and_failures_are_ignored() -> None:
    hooks = HookRegistry()
    seen: list[str] = []

    def broken(event: ToolEvent) -> None:
        raise RuntimeError("observer bug")

    async def async_observer(event: ToolEvent) -> None:
        seen.append("async:" + event.name)

    hooks.observe(broken)
    hooks.observe(lambda event: seen.append("sync:" + event.name))
    hooks.observe(async_observer)
    await hooks.emit(ToolEvent(name="tool:pre", tool_name="t", tool_call_id="c"))
    assert seen == ["sync:tool:pre", "async:tool:pre"]


def test_progress_reaches_sync_observers_and_skips_async_ones_cleanly() -> None:
    hooks = HookRegistry()
    seen: list[ToolEvent] = []

    async def async_observer(event: ToolEvent) -> None:
        seen.append(event)

    hooks.observe(async_observer)
    hooks.observe(seen.append)
    progress = ProgressEvent(tool_name="t", message="half", percent=50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a never-awaited coroutine would warn
        hooks.emit_progress_nowait(progress, "c9")
    (event,) = seen
    assert (event.name, event.tool_name, event.tool_call_id) == ("progress", "t", "c9")
    assert event.data["progress"] is progress


def test_a_failing_observer_does_not_stop_progress_delivery() -> None:
    hooks = HookRegistry()
    seen: list[ToolEvent] = []

    def broken(event: ToolEvent) -> None:
        raise RuntimeError("observer bug")

    hooks.observe(broken)
    hooks.observe(seen.append)
    hooks.emit_progress_nowait(ProgressEvent(tool_name="t", message="m"), "c1")
    assert len(seen) == 1


@pytest.mark.anyio
async def test_after_handlers_limited_to_tools_skip_the_others() -> None:
    hooks = HookRegistry()
    hooks.after_tool_call(lambda call: Ok("rewritten"), tools=["terminal"])
    assert await hooks.run_after(_after(Ok("kept"), name="read_file")) == Ok("kept")
    assert await hooks.run_after(_after(Ok("kept"), name="terminal")) == Ok("rewritten")


# -- through the registry ---------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_denied_call_gets_the_reason_and_never_runs() -> None:
    recorder = Recorder()
    registry = _registry(_qty_tool(recorder))
    registry.hooks.before_tool_call(lambda call: deny("orders are paused"))
    outcome = await registry.execute("order", {"qty": 1}, CTX)
    assert outcome.result == Err("orders are paused", ErrorCode.NOT_AVAILABLE, reason="hook_denied")
    assert recorder.calls == []


@pytest.mark.anyio
async def test_a_raising_before_handler_blocks_the_call() -> None:
    recorder = Recorder()
    registry = _registry(_qty_tool(recorder))

    def guard(call: BeforeCall) -> None:
        raise ConnectionError("approval service unreachable")

    registry.hooks.before_tool_call(guard)
    result = (await registry.execute("order", {"qty": 1}, CTX)).result
    assert isinstance(result, Err)
    assert result.code == ErrorCode.NOT_AVAILABLE
    assert "approval service unreachable" in result.error
    assert recorder.calls == []


@pytest.mark.anyio
async def test_before_handlers_see_validated_arguments_and_the_context() -> None:
    recorder = Recorder()
    registry = _registry(_qty_tool(recorder))
    seen: list[BeforeCall] = []
    registry.hooks.before_tool_call(seen.append)  # type: ignore[arg-type]
    ctx = ToolContext(session_id="who")
    await registry.execute("order", '{"qty": 4}', ctx, call_id="c7")
    (call,) = seen
    assert (call.tool_name, call.tool_call_id, dict(call.args)) == ("order", "c7", {"qty": 4})
    assert call.ctx.session_id == "who"


@pytest.mark.anyio
async def test_replaced_arguments_are_what_the_tool_runs_with() -> None:
    recorder = Recorder()
    registry = _registry(_qty_tool(recorder))
    registry.hooks.before_tool_call(lambda call: replace_args({"qty": min(call.args["qty"], 10)}))
    outcome = await registry.execute("order", {"qty": 500}, CTX)
    assert outcome.result == Ok("qty=10")
    assert recorder.calls == [{"qty": 10}]


@pytest.mark.anyio
async def test_invalid_replaced_arguments_are_input_invalid_and_never_run() -> None:
    recorder = Recorder()
    registry = _registry(_qty_tool(recorder))
    registry.hooks.before_tool_call(lambda call: replace_args({"qty": "lots", "extra": 1}))
    result = (await registry.execute("order", {"qty": 1}, CTX)).result
    assert isinstance(result, Err)
    assert result.code == ErrorCode.INPUT_INVALID
    assert result.error.startswith("Arguments set by a hook are invalid for order: ")
    assert "qty: expected integer" in result.error
    assert "extra: unexpected field" in result.error
    assert recorder.calls == []


@pytest.mark.anyio
async def test_an_after_handler_replaces_what_the_caller_gets() -> None:
    registry = _registry(_qty_tool(Recorder()))
    seen: list[AfterCall] = []

    def redact(call: AfterCall) -> ToolResult:
        seen.append(call)
        return Ok("[redacted]")

    registry.hooks.after_tool_call(redact)
    outcome = await registry.execute("order", {"qty": 2}, CTX, call_id="c3")
    assert outcome.result == Ok("[redacted]")
    (call,) = seen
    assert (call.result, dict(call.args), call.tool_call_id) == (Ok("qty=2"), {"qty": 2}, "c3")
    assert call.duration_ms >= 0
    assert call.ctx.tool_call_id == "c3"


@pytest.mark.anyio
async def test_after_handlers_do_not_run_for_rejected_calls() -> None:
    registry = _registry(_qty_tool(Recorder()))
    ran: list[str] = []
    registry.hooks.after_tool_call(lambda call: ran.append(call.tool_name))  # type: ignore[arg-type,func-returns-value]
    await registry.execute("order", {"qty": "x"}, CTX)
    await registry.execute("missing", {}, CTX)
    assert ran == []


@pytest.mark.anyio
async def test_a_raising_after_handler_leaves_the_original_and_is_observed() -> None:
    registry = _registry(_qty_tool(Recorder()))
    events: list[ToolEvent] = []
    registry.hooks.observe(events.append)

    def broken(call: AfterCall) -> ToolResult:
        raise KeyError("k")

    registry.hooks.after_tool_call(broken)
    outcome = await registry.execute("order", {"qty": 2}, CTX)
    assert outcome.result == Ok("qty=2")
    assert [e.name for e in events] == ["tool:pre", "tool:post", "tool:error"]
    assert "after hook 'broken' failed" in events[-1].data["error"]


@pytest.mark.anyio
async def test_observers_see_pre_and_post_with_input_result_and_duration() -> None:
    registry = _registry(_qty_tool(Recorder()))
    events: list[ToolEvent] = []
    registry.hooks.observe(events.append)
    await registry.execute("order", {"qty": 3}, CTX, call_id="c1")
    pre, post = events
    assert (pre.name, pre.tool_name, pre.tool_call_id, pre.data["input"]) == (
        "tool:pre",
        "order",
        "c1",
        {"qty": 3},
    )
    assert (post.name, post.data["result"]) == ("tool:post", Ok("qty=3"))
    assert post.data["duration_ms"] >= 0


@pytest.mark.anyio
async def test_a_raising_tool_is_reported_as_tool_error_before_post() -> None:
    async def broken(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise RuntimeError("disk on fire")

    registry = _registry(define_tool(name="b", description="B.", schema={}, execute=broken))
    events: list[ToolEvent] = []
    registry.hooks.observe(events.append)
    await registry.execute("b", {}, CTX)
    assert [e.name for e in events] == ["tool:pre", "tool:error", "tool:post"]
    assert events[1].data["error"] == "disk on fire"


@pytest.mark.anyio
async def test_an_err_result_is_not_a_tool_error_event() -> None:
    async def refuse(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return Err("no such key", ErrorCode.NOT_AVAILABLE)

    registry = _registry(define_tool(name="r", description="R.", schema={}, execute=refuse))
    events: list[ToolEvent] = []
    registry.hooks.observe(events.append)
    await registry.execute("r", {}, CTX)
    assert [e.name for e in events] == ["tool:pre", "tool:post"]


@pytest.mark.anyio
async def test_progress_reaches_the_callers_emit_and_observers_in_order() -> None:
    async def working(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.emit(ProgressEvent(tool_name="w", message="halfway", percent=50))
        ctx.emit(ProgressEvent(tool_name="w", message="tell the user", audience="user"))
        return Ok("done")

    registry = _registry(define_tool(name="w", description="W.", schema={}, execute=working))
    events: list[ToolEvent] = []
    registry.hooks.observe(events.append)
    received: list[ProgressEvent] = []
    await registry.execute("w", {}, ToolContext(session_id="s", emit=received.append))
    assert [(e.message, e.audience) for e in received] == [
        ("halfway", "internal"),
        ("tell the user", "user"),
    ]
    assert [e.name for e in events] == ["tool:pre", "progress", "progress", "tool:post"]
    assert [e.data["progress"] for e in events[1:3]] == received


@pytest.mark.anyio
async def test_a_failing_caller_emit_does_not_stop_observers_or_the_tool() -> None:
    async def working(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.emit(ProgressEvent(tool_name="w", message="tick"))
        return Ok("done")

    def broken_emit(event: ProgressEvent) -> None:
        raise RuntimeError("ui gone")

    registry = _registry(define_tool(name="w", description="W.", schema={}, execute=working))
    events: list[ToolEvent] = []
    registry.hooks.observe(events.append)
    outcome = await registry.execute("w", {}, ToolContext(session_id="s", emit=broken_emit))
    assert outcome.result == Ok("done")
    assert "progress" in [e.name for e in events]
