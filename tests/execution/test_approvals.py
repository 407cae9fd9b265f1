"""Approvals bound to the call: a ``requires_approval`` tool runs only with a token bound to its
definition, its arguments and the session, and only once per token (asyncio and trio)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import anyio
import pytest
from exec_helpers import Calls, ctx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import ConfigurationError, ToolDefinitionError
from toolwire.execution.approvals import (
    Approvals,
    PendingApproval,
    approval_binding,
    definition_hash,
    pending_approval,
)
from toolwire.execution.cache import canonical_args
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok
from toolwire.stores import MemoryKeyValueBackend
from toolwire.tool_options import ToolOptions
from toolwire.tools import Tool

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


def _registry(
    kv: MemoryKeyValueBackend | None = None, **tool_options: Any
) -> tuple[ToolRegistry, Calls]:
    kv = kv or MemoryKeyValueBackend()
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    registry = ToolRegistry(backends=backends, reducers=None)
    recorder = Calls()
    tool_options.setdefault("requires_approval", True)
    tool_options.setdefault("schema", SCHEMA)
    registry.register_all([recorder.tool("delete", **tool_options), recorder.tool("read")])
    return registry, recorder


def _pending(outcome: CallOutcome) -> PendingApproval:
    pending = pending_approval(outcome)
    assert pending is not None, outcome.result
    return pending


def _reason(outcome: CallOutcome) -> str | None:
    assert isinstance(outcome.result, Err), outcome.result
    assert outcome.result.code is ErrorCode.NOT_AVAILABLE
    return outcome.result.reason


async def test_a_call_needing_approval_is_not_run_and_answers_approval_required() -> None:
    registry, recorder = _registry()
    outcome = await registry.execute("delete", {"path": "a"}, ctx())
    assert _reason(outcome) == "approval_required"
    assert recorder.names == []
    pending = _pending(outcome)
    assert pending.tool_name == "delete"
    assert pending.args == {"path": "a"}
    assert pending.tool_call_id == "call_0"
    assert pending.token in outcome.result.error  # type: ignore[union-attr]


async def test_an_approved_call_runs_once_and_the_token_cannot_be_used_again() -> None:
    registry, recorder = _registry()
    context = ctx()
    pending = _pending(await registry.execute("delete", {"path": "a"}, context))
    ran = await registry.execute("delete", {"path": "a"}, context, approvals=[pending.token])
    assert ran.result == Ok("delete ok")
    again = await registry.execute("delete", {"path": "a"}, context, approvals=[pending])
    assert _reason(again) == "approval_used"
    assert recorder.names == ["delete"]


async def test_a_token_does_not_work_for_other_arguments() -> None:
    registry, recorder = _registry()
    context = ctx()
    pending = _pending(await registry.execute("delete", {"path": "a"}, context))
    other = await registry.execute("delete", {"path": "b"}, context, approvals=[pending])
    assert _reason(other) == "approval_required"
    assert _pending(other).token != pending.token
    assert recorder.names == []
    ran = await registry.execute("delete", {"path": "a"}, context, approvals=[pending])
    assert ran.result == Ok("delete ok")  # still unused, still good for its own call


async def test_a_token_does_not_work_in_another_session() -> None:
    registry, recorder = _registry()
    pending = _pending(await registry.execute("delete", {"path": "a"}, ctx(session_id="one")))
    other = await registry.execute(
        "delete", {"path": "a"}, ctx(session_id="two"), approvals=[pending]
    )
    assert _reason(other) == "approval_required"
    assert recorder.names == []


async def test_a_token_does_not_work_once_the_definition_changed() -> None:
    kv = MemoryKeyValueBackend()
    registry, recorder = _registry(kv)
    context = ctx()
    pending = _pending(await registry.execute("delete", {"path": "a"}, context))
    original = registry.get("delete")
    assert original is not None
    registry.register(replace(original, description="Deletes more than it says."), replace=True)
    outcome = await registry.execute("delete", {"path": "a"}, context, approvals=[pending])
    assert _reason(outcome) == "approval_required"
    assert recorder.names == []


async def test_a_forged_token_with_the_right_prefix_is_not_an_approval() -> None:
    registry, recorder = _registry()
    context = ctx()
    pending = _pending(await registry.execute("delete", {"path": "a"}, context))
    forged = pending.token[:-24] + "0" * 24
    outcome = await registry.execute("delete", {"path": "a"}, context, approvals=[forged])
    assert _reason(outcome) == "approval_required"
    assert recorder.names == []


async def test_arguments_in_another_order_or_spacing_are_the_same_call() -> None:
    registry, _recorder = _registry(schema={"type": "object", "properties": {"a": {}, "b": {}}})
    context = ctx()
    pending = _pending(await registry.execute("delete", '{"a": 1, "b": 2}', context))
    ran = await registry.execute("delete", '{"b":2,"a":1}', context, approvals=[pending])
    assert ran.result == Ok("delete ok")


async def test_in_a_batch_each_token_runs_one_identical_call_and_no_more() -> None:
    registry, recorder = _registry()
    context = ctx()
    first = await registry.execute_parallel(
        [
            ToolCall(id="x", name="delete", args={"path": "a"}),
            ToolCall(id="y", name="delete", args={"path": "a"}),
            ToolCall(id="z", name="read", args={}),
        ],
        context,
    )
    tokens = [_pending(first[0]).token, _pending(first[1]).token]
    assert tokens[0] != tokens[1]
    assert first[2].result == Ok("read ok")
    second = await registry.execute_parallel(
        [
            ToolCall(id="x", name="delete", args={"path": "a"}),
            ToolCall(id="y", name="delete", args={"path": "a"}),
            ToolCall(id="w", name="delete", args={"path": "a"}),
        ],
        context,
        approvals=tokens,
    )
    results = [outcome.result for outcome in second]
    assert results.count(Ok("delete ok")) == 2  # two tokens, two runs: whichever calls won them
    refused = [outcome for outcome in second if not outcome.result.ok]
    assert [_reason(outcome) for outcome in refused] == ["approval_used"]
    assert recorder.names.count("delete") == 2


async def test_a_rule_asks_only_for_the_calls_it_selects() -> None:
    def outside_tmp(args: Mapping[str, Any], context: ToolContext) -> bool:
        return not str(args.get("path", "")).startswith("/tmp/")

    registry, recorder = _registry(requires_approval=outside_tmp)
    context = ctx()
    free = await registry.execute("delete", {"path": "/tmp/x"}, context)
    assert free.result == Ok("delete ok")
    held = await registry.execute("delete", {"path": "/etc/x"}, context)
    assert _reason(held) == "approval_required"
    assert recorder.names == ["delete"]


async def test_a_rule_that_raises_or_answers_oddly_asks_for_approval() -> None:
    def broken(args: Mapping[str, Any], context: ToolContext) -> bool:
        raise RuntimeError("rule bug")

    for rule in (broken, lambda args, context: None):
        registry, recorder = _registry(requires_approval=rule)
        outcome = await registry.execute("delete", {"path": "a"}, ctx())
        assert _reason(outcome) == "approval_required"
        assert recorder.names == []


async def test_the_rule_sees_the_context() -> None:
    def for_guests(args: Mapping[str, Any], context: ToolContext) -> bool:
        return context.personality_id == "guest"

    registry, _recorder = _registry(requires_approval=for_guests)
    assert (await registry.execute("delete", {}, ctx(personality_id="admin"))).result.ok
    held = await registry.execute("delete", {}, ctx(personality_id="guest"))
    assert _reason(held) == "approval_required"


async def test_a_dry_run_asks_for_nothing_and_runs_nothing() -> None:
    registry, recorder = _registry()
    outcome = await registry.execute("delete", {"path": "a"}, ctx(dry_run=True))
    assert isinstance(outcome.result, Ok)
    assert outcome.result.value.startswith("[dry-run]")
    assert recorder.names == []


async def test_without_a_store_the_call_is_refused_not_run() -> None:
    registry = ToolRegistry(reducers=None)
    recorder = Calls()
    registry.register(recorder.tool("delete", requires_approval=True))
    outcome = await registry.execute("delete", {}, ctx())
    assert _reason(outcome) == "approval_store_missing"
    assert recorder.names == []


async def test_an_explicit_store_serves_a_registry_without_backends() -> None:
    store = MemoryKeyValueBackend().scoped("approvals", "tool:approvals")
    registry = ToolRegistry(reducers=None, approvals=Approvals(store=store))
    recorder = Calls()
    registry.register(recorder.tool("delete", requires_approval=True))
    context = ctx()
    pending = _pending(await registry.execute("delete", {}, context))
    assert await store.get(pending.token) is not None
    assert (await registry.execute("delete", {}, context, approvals=[pending])).result.ok


async def test_an_expired_token_no_longer_approves() -> None:
    store = MemoryKeyValueBackend().scoped("approvals", "tool:approvals")
    registry = ToolRegistry(reducers=None, approvals=Approvals(store=store, ttl_s=0.05))
    recorder = Calls()
    registry.register(recorder.tool("delete", requires_approval=True))
    context = ctx()
    pending = _pending(await registry.execute("delete", {}, context))
    await store.delete(pending.token)  # what expiry does, without waiting for it
    outcome = await registry.execute("delete", {}, context, approvals=[pending])
    assert _reason(outcome) == "approval_required"
    assert recorder.names == []


def test_approvals_given_as_one_string_are_a_programming_error() -> None:
    registry, _ = _registry()
    with pytest.raises(ConfigurationError, match="list of tokens"):
        registry.execute_parallel([], ctx(), approvals="apr-x")
    with pytest.raises(ConfigurationError, match="tokens"):
        registry.execute_parallel([], ctx(), approvals=[42])  # type: ignore[list-item]


def test_bad_settings_and_rules_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="ttl_s"):
        Approvals(ttl_s=0)
    with pytest.raises(ConfigurationError, match="compare_and_set"):
        Approvals(store=object())  # type: ignore[arg-type]
    recorder = Calls()
    with pytest.raises(ToolDefinitionError, match="requires_approval"):
        recorder.tool("x", requires_approval="yes")

    async def later(args: Mapping[str, Any], context: ToolContext) -> bool:
        return True

    with pytest.raises(ToolDefinitionError, match="requires_approval"):
        recorder.tool("x", requires_approval=later)


def test_the_decorator_takes_requires_approval() -> None:
    @tool(options=ToolOptions(requires_approval=True))
    def wipe(path: str) -> str:
        """Wipe a path."""
        return path

    assert isinstance(wipe, Tool)
    assert wipe.requires_approval is True


def test_the_binding_changes_with_each_of_its_parts() -> None:
    recorder = Calls()
    one = recorder.tool("t", schema=SCHEMA)
    renamed = recorder.tool("u", schema=SCHEMA)
    described = replace(one, description="Other.")
    reschema = recorder.tool("t", schema={"type": "object"})
    base = approval_binding(one, {"path": "a"}, "s")
    assert approval_binding(one, {"path": "a"}, "s") == base
    assert len({definition_hash(t) for t in (one, renamed, described, reschema)}) == 4
    assert approval_binding(one, {"path": "b"}, "s") != base
    assert approval_binding(one, {"path": "a"}, "s2") != base
    assert approval_binding(described, {"path": "a"}, "s") != base


def test_pending_approval_is_none_for_other_outcomes() -> None:
    outcome = CallOutcome(
        tool_call_id="c", name="t", result=Err("x", ErrorCode.NOT_AVAILABLE), duration_ms=0.0
    )
    assert pending_approval(outcome) is None


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
ARGS = st.dictionaries(st.text(min_size=1, max_size=6), JSON_VALUES, max_size=4)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(approved=ARGS, asked=ARGS)
def test_a_token_runs_exactly_the_arguments_it_was_issued_for(
    approved: dict[str, Any], asked: dict[str, Any], anyio_backend: str
) -> None:
    async def check() -> None:
        registry, recorder = _registry(schema={"type": "object"})
        context = ctx()
        pending = _pending(await registry.execute("delete", approved, context))
        reordered = dict(reversed(list(asked.items())))
        outcome = await registry.execute("delete", reordered, context, approvals=[pending])
        if canonical_args(asked) == canonical_args(approved):
            assert outcome.result == Ok("delete ok")
            assert recorder.names == ["delete"]
        else:
            assert _reason(outcome) == "approval_required"
            assert recorder.names == []

    anyio.run(check, backend=anyio_backend)


async def test_an_approved_call_refused_by_a_quota_keeps_its_token() -> None:
    """Regression (outside check, issue 23): a token was spent by a call that a later stage
    refused, so the same approval then answered ``approval_used`` although nothing ran."""
    from toolwire.execution.quotas import Quota, Quotas

    clock = [1_000_000.0]
    kv = MemoryKeyValueBackend()
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    quotas = Quotas(
        [Quota(name="once", tools=["delete"], calls=1, window_s=60)], clock=lambda: clock[0]
    )
    registry = ToolRegistry(backends=backends, reducers=None, quotas=quotas)
    recorder = Calls()
    registry.register(recorder.tool("delete", requires_approval=True, schema=SCHEMA))
    context = ctx()
    first = _pending(await registry.execute("delete", {"path": "a"}, context))
    assert (
        await registry.execute("delete", {"path": "a"}, context, approvals=[first.token])
    ).result.ok
    second = _pending(await registry.execute("delete", {"path": "b"}, context))
    refused = await registry.execute("delete", {"path": "b"}, context, approvals=[second.token])
    assert _reason(refused) == "quota_exceeded"
    assert recorder.names == ["delete"]
    clock[0] += 60  # the next window: the same approval runs the call, once
    ran = await registry.execute("delete", {"path": "b"}, context, approvals=[second.token])
    assert ran.result.ok, ran.result
    assert recorder.names == ["delete", "delete"]
    again = await registry.execute("delete", {"path": "b"}, context, approvals=[second.token])
    assert _reason(again) == "approval_used"
