"""ToolContext defaults and derivation, ProgressEvent, and the anyio-based AbortSignal."""

from __future__ import annotations

import dataclasses
import os
import threading

import anyio
import pytest

from toolwire.context import (
    DEFAULT_RESULT_BUDGET_CHARS,
    AbortSignal,
    ProgressEvent,
    ToolContext,
)
from toolwire.errors import AbortedError

SPEC_01_FIELDS = {
    "session_id",
    "session_key",
    "platform",
    "working_dir",
    "agent_id",
    "personality_id",
    "memory_scope",
    "memory_scope_id",
    "team_id",
    "current_turn",
    "message_count",
    "abort_signal",
    "emit",
    "result_budget_chars",
    "storage",
    "read_mtimes",
    "network_policy",
    "kv_store",
    "secrets_resolver",
    "scoped_fetch",
    "scoped_fs",
    "scoped_process",
    "attachments",
    "dry_run",
}


# -- ProgressEvent ------------------------------------------------------------------------------


def test_progress_event_audience_is_internal_when_absent() -> None:
    event = ProgressEvent(tool_name="t", message="working")
    assert event.audience == "internal"
    assert event.percent is None
    assert event.type == "progress"


def test_progress_event_keeps_an_explicit_audience_and_percent() -> None:
    event = ProgressEvent(tool_name="t", message="half", percent=50.0, audience="user")
    assert (event.audience, event.percent) == ("user", 50.0)


# -- ToolContext --------------------------------------------------------------------------------


def test_context_has_every_field_of_spec_01() -> None:
    names = {f.name for f in dataclasses.fields(ToolContext)}
    assert names >= SPEC_01_FIELDS


def test_session_id_alone_is_enough() -> None:
    ctx = ToolContext(session_id="s1")
    assert ctx.session_key == "s1"
    assert ctx.working_dir == os.getcwd()
    assert ctx.current_turn == 1
    assert ctx.result_budget_chars == 80_000 == DEFAULT_RESULT_BUDGET_CHARS
    assert ctx.dry_run is False
    assert ctx.platform == "library"


def test_default_abort_signal_is_fresh_and_pending() -> None:
    first, second = ToolContext(session_id="a"), ToolContext(session_id="b")
    assert isinstance(first.abort_signal, AbortSignal)
    assert not first.abort_signal.aborted
    assert first.abort_signal is not second.abort_signal


def test_default_emit_is_a_no_op() -> None:
    ctx = ToolContext(session_id="s")
    assert ctx.emit(ProgressEvent(tool_name="t", message="m")) is None


def test_explicit_session_key_is_kept() -> None:
    assert ToolContext(session_id="s", session_key="cli:repo").session_key == "cli:repo"


@pytest.mark.parametrize("session_id", ["", None, 3])
def test_context_refuses_a_missing_session_id(session_id: object) -> None:
    with pytest.raises(ValueError, match="session_id"):
        ToolContext(session_id=session_id)  # type: ignore[arg-type]


def test_context_refuses_a_budget_below_one() -> None:
    with pytest.raises(ValueError, match="result_budget_chars"):
        ToolContext(session_id="s", result_budget_chars=0)


def test_context_refuses_turn_zero() -> None:
    with pytest.raises(ValueError, match="1-based"):
        ToolContext(session_id="s", current_turn=0)


def test_derive_applies_changes_and_leaves_the_original_alone() -> None:
    ctx = ToolContext(session_id="s", personality_id="p")
    child = ctx.derive(result_budget_chars=10, tool_call_id="c1")
    assert (child.result_budget_chars, child.tool_call_id) == (10, "c1")
    assert (ctx.result_budget_chars, ctx.tool_call_id) == (80_000, None)
    assert child.personality_id == "p"
    assert child.abort_signal is ctx.abort_signal


def test_context_is_frozen() -> None:
    ctx = ToolContext(session_id="s")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.session_id = "other"  # type: ignore[misc]


# -- AbortSignal --------------------------------------------------------------------------------


def test_signal_starts_pending() -> None:
    signal = AbortSignal()
    assert (signal.aborted, signal.reason) == (False, None)
    signal.raise_if_aborted()  # does not raise


def test_abort_sets_aborted_and_reason() -> None:
    signal = AbortSignal()
    signal.abort("user pressed stop")
    assert (signal.aborted, signal.reason) == (True, "user pressed stop")


def test_abort_keeps_the_first_reason() -> None:
    signal = AbortSignal()
    signal.abort("first")
    signal.abort("second")
    assert signal.reason == "first"


def test_abort_without_reason_says_cancelled() -> None:
    signal = AbortSignal()
    signal.abort()
    assert signal.reason == "cancelled"
    other = AbortSignal()
    other.abort("")
    assert other.reason == "cancelled"


def test_raise_if_aborted_raises_aborted_error_with_the_reason() -> None:
    signal = AbortSignal()
    signal.abort("timeout")
    with pytest.raises(AbortedError) as caught:
        signal.raise_if_aborted()
    assert caught.value.reason == "timeout"
    assert str(caught.value) == "aborted: timeout"


def test_repr_shows_the_state() -> None:
    signal = AbortSignal()
    assert "pending" in repr(signal)
    signal.abort("x")
    assert "'x'" in repr(signal)


@pytest.mark.anyio
async def test_wait_returns_at_once_when_already_aborted() -> None:
    signal = AbortSignal()
    signal.abort("done")
    with anyio.fail_after(1):
        await signal.wait()


@pytest.mark.anyio
async def test_wait_wakes_when_aborted_from_the_same_loop() -> None:
    signal = AbortSignal()
    woke: list[str | None] = []

    async def waiter() -> None:
        await signal.wait()
        woke.append(signal.reason)

    with anyio.fail_after(2):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await anyio.sleep(0.01)
            assert woke == []
            signal.abort("stop")
    assert woke == ["stop"]


@pytest.mark.anyio
async def test_wait_wakes_when_aborted_from_another_thread() -> None:
    signal = AbortSignal()
    timer = threading.Timer(0.05, signal.abort, args=("from a thread",))
    timer.start()
    try:
        with anyio.fail_after(2):
            await signal.wait()
    finally:
        timer.cancel()
    assert signal.reason == "from a thread"


@pytest.mark.anyio
async def test_subscriber_runs_when_the_signal_fires() -> None:
    signal = AbortSignal()
    calls: list[int] = []
    signal.subscribe(lambda: calls.append(1))
    signal.abort()
    assert calls == [1]


@pytest.mark.anyio
async def test_subscribing_after_abort_runs_the_callback_at_once() -> None:
    signal = AbortSignal()
    signal.abort()
    calls: list[int] = []
    signal.subscribe(lambda: calls.append(1))()  # the returned unsubscribe is a harmless no-op
    assert calls == [1]


@pytest.mark.anyio
async def test_unsubscribed_callback_does_not_run() -> None:
    signal = AbortSignal()
    calls: list[int] = []
    unsubscribe = signal.subscribe(lambda: calls.append(1))
    unsubscribe()
    unsubscribe()  # idempotent
    signal.abort()
    assert calls == []


@pytest.mark.anyio
async def test_subscriber_registered_on_the_loop_runs_on_the_loop_thread() -> None:
    signal = AbortSignal()
    loop_thread = threading.get_ident()
    ran_on: list[int] = []
    fired = anyio.Event()

    def callback() -> None:
        ran_on.append(threading.get_ident())
        fired.set()

    signal.subscribe(callback)
    await anyio.to_thread.run_sync(signal.abort, "worker")
    with anyio.fail_after(2):
        await fired.wait()
    assert ran_on == [loop_thread]
