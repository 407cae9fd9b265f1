"""The effect journal and the idempotency key: a tool with side effects acts once per key;
a retry is answered from the journal, an interrupted attempt is reported uncertain (memory
store; every store in test_effects_stores)."""

from __future__ import annotations

import functools
from typing import Any

import anyio
import pytest
from exec_helpers import Calls, ctx
from hypothesis import given
from hypothesis import strategies as st

from toolwire.calls import ToolCall
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError, ToolDefinitionError
from toolwire.execution.effects import EFFECTS_SCOPE, EFFECTS_TOOL, Effects
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.stores import MemoryKeyValueBackend

pytestmark = pytest.mark.anyio


def _registry(
    recorder: Calls, kv: MemoryKeyValueBackend | None = None, **options: Any
) -> ToolRegistry:
    kv = kv or MemoryKeyValueBackend()
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    registry = ToolRegistry(backends=backends, reducers=None, default_timeout_s=5)
    registry.register(recorder.tool("pay", side_effects=True, **options))
    return registry


def _reason(result: ToolResult) -> str | None:
    return result.reason if isinstance(result, Err) else None


async def _charge(args: dict[str, Any], context: ToolContext) -> ToolResult:
    return Ok(f"charged {args['amount']}", structured={"key": context.idempotency_key})


def test_the_idempotency_key_is_stable_for_a_session_and_call_id() -> None:
    one = ToolContext(session_id="s", tool_call_id="c1")
    assert one.idempotency_key == ToolContext(session_id="s", tool_call_id="c1").idempotency_key
    assert one.idempotency_key != ToolContext(session_id="s", tool_call_id="c2").idempotency_key
    assert one.idempotency_key != ToolContext(session_id="t", tool_call_id="c1").idempotency_key
    assert one.idempotency_key.startswith("idem-")


@given(st.text(min_size=1), st.text(), st.text(min_size=1), st.text())
def test_different_sessions_or_call_ids_never_share_a_key(
    s1: str, c1: str, s2: str, c2: str
) -> None:
    first = ToolContext(session_id=s1, tool_call_id=c1).idempotency_key
    second = ToolContext(session_id=s2, tool_call_id=c2).idempotency_key
    assert (first == second) == ((s1, c1) == (s2, c2))


async def test_a_retry_is_answered_from_the_journal() -> None:
    recorder = Calls()
    registry = _registry(recorder, body=_charge)
    first = await registry.execute("pay", {"amount": 5}, ctx(), call_id="c1")
    again = await registry.execute("pay", {"amount": 5}, ctx(), call_id="c1")
    other = await registry.execute("pay", {"amount": 5}, ctx(), call_id="c2")
    assert first.result == again.result
    assert isinstance(first.result, Ok)
    assert first.result.structured is not None
    assert first.result.structured["key"] == ctx(tool_call_id="c1").idempotency_key
    assert other.result.ok
    assert other.result != first.result
    assert len(recorder.log) == 2


async def test_the_same_key_with_other_arguments_is_a_conflict() -> None:
    recorder = Calls()
    registry = _registry(recorder)
    await registry.execute("pay", {"amount": 5}, ctx(), call_id="c1")
    clash = (await registry.execute("pay", {"amount": 6}, ctx(), call_id="c1")).result
    assert isinstance(clash, Err)
    assert clash.code is ErrorCode.INPUT_INVALID
    assert clash.reason == "idempotency_conflict"
    assert len(recorder.log) == 1


async def test_a_recorded_error_is_answered_again() -> None:
    async def refuse(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Err("card declined", ErrorCode.EXECUTION_FAILED, reason="declined")

    recorder = Calls()
    registry = _registry(recorder, body=refuse)
    results = [(await registry.execute("pay", {}, ctx(), call_id="c1")).result for _ in range(2)]
    assert results[0] == results[1]
    assert _reason(results[1]) == "declined"
    assert len(recorder.log) == 1


async def test_a_call_that_timed_out_is_uncertain_and_not_repeated() -> None:
    async def hang(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(60)
        return Ok("never")

    recorder = Calls()
    registry = _registry(recorder, body=hang, timeout_s=0.05)
    first = (await registry.execute("pay", {}, ctx(), call_id="c1")).result
    second = (await registry.execute("pay", {}, ctx(), call_id="c1")).result
    assert isinstance(first, Err)
    assert first.cause == "timeout"
    assert isinstance(second, Err)
    assert second.reason == "effect_uncertain"
    assert "timed out" in second.error
    assert "new call id" in second.error
    assert len(recorder.log) == 1


async def test_an_interrupted_attempt_is_reported_uncertain_to_another_registry() -> None:
    started = anyio.Event()

    async def hang(args: dict[str, Any], context: ToolContext) -> ToolResult:
        started.set()
        await anyio.sleep(60)
        return Ok("never")

    recorder, kv = Calls(), MemoryKeyValueBackend()
    crashed = _registry(recorder, kv, body=hang)
    async with anyio.create_task_group() as group:  # the caller goes away mid-call
        group.start_soon(functools.partial(crashed.execute, "pay", {}, ctx(), call_id="c1"))
        await started.wait()
        group.cancel_scope.cancel()
    resumed = _registry(recorder, kv, body=_charge)
    result = (await resumed.execute("pay", {}, ctx(), call_id="c1")).result
    assert isinstance(result, Err)
    assert result.reason == "effect_uncertain"
    assert "never recorded its end" in result.error
    assert len(recorder.log) == 1


async def test_a_duplicate_call_in_one_batch_runs_once() -> None:
    gate = anyio.Event()

    async def wait(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await gate.wait()
        return Ok("done")

    recorder = Calls()
    registry = _registry(recorder, body=wait)
    calls = [ToolCall(id="same", name="pay", args={}), ToolCall(id="same", name="pay", args={})]
    async with anyio.create_task_group() as group:
        group.start_soon(registry.execute_parallel, calls, ctx())
        with anyio.fail_after(5):
            while len(recorder.log) < 1:
                await anyio.sleep(0.01)
        await anyio.sleep(0.05)
        gate.set()
    assert len(recorder.log) == 1


async def test_a_running_attempt_answers_in_progress() -> None:
    gate = anyio.Event()

    async def wait(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await gate.wait()
        return Ok("done")

    recorder = Calls()
    registry = _registry(recorder, body=wait)
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(registry.execute, "pay", {}, ctx(), call_id="c1"))
        with anyio.fail_after(5):
            while not recorder.log:
                await anyio.sleep(0.01)
        busy = (await registry.execute("pay", {}, ctx(), call_id="c1")).result
        gate.set()
    assert _reason(busy) == "effect_in_progress"
    assert (await registry.execute("pay", {}, ctx(), call_id="c1")).result == Ok("done")


async def test_the_journal_is_kept_in_its_own_namespace_and_an_explicit_store_wins() -> None:
    recorder, kv = Calls(), MemoryKeyValueBackend()
    await _registry(recorder, kv).execute("pay", {}, ctx(), call_id="c1")
    assert await kv.scoped(EFFECTS_TOOL, EFFECTS_SCOPE).list("idem-") != []
    mine = MemoryKeyValueBackend().scoped("journal", "tool:journal")
    registry = ToolRegistry(reducers=None, effects=Effects(store=mine))
    registry.register(recorder.tool("pay", side_effects=True))
    await registry.execute("pay", {}, ctx(), call_id="c1")
    assert await mine.list() == [ctx(tool_call_id="c1").idempotency_key]


async def test_without_a_journal_a_side_effect_is_not_risked() -> None:
    recorder = Calls()
    registry = ToolRegistry(reducers=None)
    registry.register(recorder.tool("pay", side_effects=True))
    result = (await registry.execute("pay", {}, ctx())).result
    assert _reason(result) == "effect_journal_missing"
    assert recorder.log == []


async def test_a_dry_run_never_touches_the_journal() -> None:
    recorder, kv = Calls(), MemoryKeyValueBackend()
    registry = _registry(recorder, kv)
    result = (await registry.execute("pay", {}, ctx(dry_run=True), call_id="c1")).result
    assert result.ok
    assert "[dry-run]" in result.value
    assert await kv.scoped(EFFECTS_TOOL, EFFECTS_SCOPE).list() == []


def test_bad_settings_say_how_to_fix_them() -> None:
    with pytest.raises(ConfigurationError):
        Effects(ttl_s=0)
    with pytest.raises(ConfigurationError, match="compare_and_set"):
        Effects(store=object())  # type: ignore[arg-type]
    with pytest.raises(ToolDefinitionError, match="side_effects"):
        Calls().tool("x", side_effects="yes")
