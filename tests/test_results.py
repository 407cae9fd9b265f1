"""ToolResult = Ok | Err: the four wire codes, the helpers and the wire shape."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.results import (
    Err,
    ErrorCode,
    Ok,
    err,
    ok,
    result_from_dict,
    result_to_dict,
)


def test_error_codes_are_exactly_the_four_wire_strings() -> None:
    assert {code.value for code in ErrorCode} == {
        "input_invalid",
        "not_available",
        "execution_failed",
        "STALE_WRITE",
    }


@pytest.mark.parametrize(
    "code", ["input_invalid", "not_available", "execution_failed", "STALE_WRITE"]
)
def test_error_code_members_compare_equal_to_their_wire_string(code: str) -> None:
    member = ErrorCode(code)
    assert member == code
    assert str(member) == code
    assert json.dumps(member) == json.dumps(code)


def test_stale_write_keeps_its_upper_case_wire_form() -> None:
    assert ErrorCode.STALE_WRITE == "STALE_WRITE"
    assert ErrorCode.STALE_WRITE != "stale_write"


def test_ok_carries_value_structured_and_cost() -> None:
    result = Ok("done", structured={"n": 1}, cost_usd=0.25)
    assert (result.ok, result.value, result.structured, result.cost_usd) == (
        True,
        "done",
        {"n": 1},
        0.25,
    )


def test_ok_defaults_leave_structured_and_cost_empty() -> None:
    result = Ok("x")
    assert result.structured is None
    assert result.cost_usd is None


def test_err_defaults_to_execution_failed_with_no_detail_fields() -> None:
    result = Err("boom")
    assert result.ok is False
    assert result.code is ErrorCode.EXECUTION_FAILED
    assert (result.field, result.reason, result.cause, result.conflict_key) == (None,) * 4


def test_err_given_a_wire_string_stores_the_enum_member() -> None:
    result = Err("stale", "STALE_WRITE")  # type: ignore[arg-type]
    assert result.code is ErrorCode.STALE_WRITE


def test_err_refuses_an_unknown_code() -> None:
    with pytest.raises(ValueError, match="not_found"):
        Err("missing", "not_found")  # type: ignore[arg-type]


def test_results_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Ok("x").value = "y"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Err("x").error = "y"  # type: ignore[misc]


def test_ok_helper_builds_a_success() -> None:
    assert ok("v", structured={"a": 1}, cost_usd=1.5) == Ok("v", structured={"a": 1}, cost_usd=1.5)


def test_err_helper_defaults_to_execution_failed() -> None:
    assert err("boom") == Err("boom", ErrorCode.EXECUTION_FAILED)


def test_err_helper_accepts_codes_as_strings_and_detail_fields() -> None:
    result = err("bad", "input_invalid", field="items[0].qty")
    assert result == Err("bad", ErrorCode.INPUT_INVALID, field="items[0].qty")
    assert err("gone", ErrorCode.NOT_AVAILABLE, reason="unknown_tool").reason == "unknown_tool"
    assert err("x", cause="TimeoutError").cause == "TimeoutError"
    assert err("x", "STALE_WRITE", conflict_key="/a").conflict_key == "/a"


def test_err_helper_refuses_codes_outside_the_closed_set() -> None:
    with pytest.raises(ValueError):
        err("missing", "not_found")


def test_ok_wire_shape_leaves_out_empty_fields() -> None:
    assert result_to_dict(Ok("v")) == {"ok": True, "value": "v"}
    assert result_to_dict(Ok("v", structured={"a": 1}, cost_usd=0.5)) == {
        "ok": True,
        "value": "v",
        "structured": {"a": 1},
        "cost_usd": 0.5,
    }


def test_err_wire_shape_uses_the_wire_code_and_leaves_out_empty_fields() -> None:
    assert result_to_dict(Err("bad", ErrorCode.INPUT_INVALID, field="x")) == {
        "ok": False,
        "error": "bad",
        "code": "input_invalid",
        "field": "x",
    }


def test_err_wire_shape_is_json_serialisable() -> None:
    text = json.dumps(result_to_dict(Err("s", ErrorCode.STALE_WRITE, conflict_key="/f")))
    assert json.loads(text)["code"] == "STALE_WRITE"


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"ok": "yes", "value": "v"},
        {"ok": True},
        {"ok": True, "value": 3},
        {"ok": False},
        {"ok": False, "error": None},
    ],
)
def test_from_dict_refuses_what_is_not_a_result(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        result_from_dict(data)


def test_from_dict_refuses_an_unknown_code() -> None:
    with pytest.raises(ValueError):
        result_from_dict({"ok": False, "error": "x", "code": "nope"})


def test_from_dict_defaults_a_missing_code_to_execution_failed() -> None:
    assert result_from_dict({"ok": False, "error": "x"}) == Err("x")


_text = st.text(max_size=30)
_optional = st.none() | _text
_oks = st.builds(
    Ok,
    _text,
    structured=st.none() | st.dictionaries(_text, st.integers(), max_size=3),
    cost_usd=st.none() | st.floats(min_value=0, max_value=1e6, allow_nan=False),
)
_errs = st.builds(
    Err,
    _text,
    st.sampled_from(list(ErrorCode)),
    field=_optional,
    reason=_optional,
    cause=_optional,
    conflict_key=_optional,
)


@given(_oks | _errs)
def test_wire_shape_round_trips_through_json(result: Ok | Err) -> None:
    data = json.loads(json.dumps(result_to_dict(result)))
    assert result_from_dict(data) == result
