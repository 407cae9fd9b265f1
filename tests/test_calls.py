"""ToolCall and CallOutcome: an outcome's repr never prints the call's argument values."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from toolwire.calls import CallOutcome, ToolCall, make_outcome
from toolwire.results import ok

SECRET = "sk-live-" + "do-not-log-me-0123456789"


def outcome(args: object) -> CallOutcome:
    return CallOutcome(
        tool_call_id="call_1",
        name="deploy",
        result=ok("done"),
        duration_ms=2.5,
        args=args,  # type: ignore[arg-type]
    )


def test_repr_summarises_the_arguments_without_their_values() -> None:
    shown = repr(outcome({"api_key": SECRET, "region": "eu", "dry_run": True}))
    assert SECRET not in shown
    assert "eu" not in shown
    assert "api_key" not in shown
    assert shown.endswith("args=<3 keys>)")


def test_repr_keeps_the_other_fields() -> None:
    shown = repr(outcome({"a": 1}))
    assert shown == (
        "CallOutcome(tool_call_id='call_1', name='deploy', result=Ok(value='done', "
        "structured=None, cost_usd=None), duration_ms=2.5, cached=False, args=<1 key>)"
    )


@pytest.mark.parametrize(
    ("args", "summary"),
    [(None, "args=None"), ({}, "args=<0 keys>"), (MappingProxyType({"k": SECRET}), "args=<1 key>")],
)
def test_repr_of_missing_empty_and_read_only_arguments(args: object, summary: str) -> None:
    shown = repr(outcome(args))
    assert shown.endswith(f"{summary})")
    assert SECRET not in shown


def test_the_outcome_is_still_a_frozen_slotted_dataclass_compared_by_its_arguments() -> None:
    first = outcome({"k": "a"})
    assert dataclasses.is_dataclass(first)
    assert not hasattr(first, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.name = "other"  # type: ignore[misc]
    assert first == outcome({"k": "a"})
    assert first != outcome({"k": "b"})
    assert dataclasses.replace(first, args=None).args is None


def test_the_fast_constructor_builds_an_equal_outcome_with_the_same_repr() -> None:
    fast = make_outcome("call_1", "deploy", ok("done"), 2.5, False, {"api_key": SECRET})
    slow = outcome({"api_key": SECRET})
    assert fast == slow
    assert repr(fast) == repr(slow)
    assert SECRET not in repr(fast)


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (f'{{"api_key": "{SECRET}"}}', "args=<47 chars>"),
        ({"api_key": SECRET, "region": "eu"}, "args=<2 keys>"),
    ],
)
def test_a_tool_calls_repr_never_prints_its_arguments(args: object, shown: str) -> None:
    call = ToolCall(id="c1", name="deploy", args=args)  # type: ignore[arg-type]
    text = repr(call)
    assert SECRET not in text
    assert text == f"ToolCall(id='c1', name='deploy', {shown})"


def test_tool_call_keeps_its_dataclass_contract_with_its_own_init() -> None:
    call = ToolCall(id="c1", name="add")
    assert call.args == "{}"
    assert call == ToolCall(id="c1", name="add", args="{}")
    assert hash(call) == hash(ToolCall(id="c1", name="add", args="{}"))
    assert dataclasses.replace(call, args='{"a": 1}').args == '{"a": 1}'
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ToolCall("c1", "add")  # type: ignore[call-arg]
