"""The amplifier-style view of results and get_serialized_output (spec 05)."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.integrations.amplifier_results import AmplifierResult, from_amplifier, to_amplifier
from toolwire.results import Err, ErrorCode, Ok


def test_ok_becomes_success_with_the_value_as_output() -> None:
    view = to_amplifier(Ok("done"))
    assert (view.success, view.output, view.error, view.metadata) == (True, "done", None, {})


def test_ok_cost_and_structured_go_to_metadata() -> None:
    view = to_amplifier(Ok("v", structured={"n": 1}, cost_usd=0.5))
    assert view.metadata == {"structured": {"n": 1}, "cost_usd": 0.5}


def test_err_becomes_failure_with_message_type_and_details() -> None:
    view = to_amplifier(Err("bad qty", ErrorCode.INPUT_INVALID, field="qty"))
    assert view.success is False
    assert view.error == {"message": "bad qty", "type": "input_invalid", "field": "qty"}


def test_serialized_output_of_a_success_is_the_value() -> None:
    assert to_amplifier(Ok("plain text")).get_serialized_output() == "plain text"


def test_serialized_output_of_a_failure_carries_the_error_message() -> None:
    text = to_amplifier(Err("file not found", ErrorCode.NOT_AVAILABLE)).get_serialized_output()
    assert text == "Error: file not found"


def test_failure_with_output_keeps_both_message_and_output() -> None:
    view = AmplifierResult(success=False, output="stderr lines", error={"message": "exit 1"})
    assert view.get_serialized_output() == "Error: exit 1\nstderr lines"


def test_failure_without_a_message_says_unknown_error() -> None:
    assert AmplifierResult(success=False).get_serialized_output() == "Error: Unknown error"


def test_an_error_dict_on_a_success_flag_is_still_reported() -> None:
    view = AmplifierResult(success=True, output="x", error={"message": "partial"})
    assert view.get_serialized_output().startswith("Error: partial")


def test_dicts_and_lists_become_json() -> None:
    assert AmplifierResult(success=True, output={"a": [1, 2]}).get_serialized_output() == (
        '{"a": [1, 2]}'
    )
    assert AmplifierResult(success=True, output=[1, "é"]).get_serialized_output() == '[1, "é"]'


def test_decimals_become_their_exact_string() -> None:
    assert AmplifierResult(success=True, output=Decimal("1.10")).get_serialized_output() == "1.10"
    nested = AmplifierResult(success=True, output={"price": Decimal("0.1000000000000000055")})
    assert json.loads(nested.get_serialized_output()) == {"price": "0.1000000000000000055"}


def test_other_values_inside_json_are_made_json_able() -> None:
    view = AmplifierResult(success=True, output={"when": datetime.date(2024, 5, 1), "n": {1, 2}})
    assert json.loads(view.get_serialized_output()) == {"when": "2024-05-01", "n": [1, 2]}


def test_none_output_on_success_is_empty() -> None:
    assert AmplifierResult(success=True).get_serialized_output() == ""


def test_other_values_use_their_string_form() -> None:
    assert AmplifierResult(success=True, output=42).get_serialized_output() == "42"


def test_control_characters_are_stripped_but_tab_newline_and_cr_stay() -> None:
    raw = "a\x00b\x07c\x1bd\x7fe\tf\ng\r\nh"
    assert AmplifierResult(success=True, output=raw).get_serialized_output() == "abcde\tf\ng\r\nh"


def test_control_characters_in_messages_are_stripped_and_in_json_escaped() -> None:
    view = AmplifierResult(success=False, output={"k": "v\x01"}, error={"message": "m\x02"})
    assert view.get_serialized_output() == 'Error: m\n{"k": "v\\u0001"}'


def test_lone_surrogates_are_stripped() -> None:
    text = AmplifierResult(success=True, output="a\ud800b").get_serialized_output()
    assert text == "ab"
    text.encode("utf-8")  # providers need valid UTF-8


@given(st.text())
def test_serialized_output_is_always_valid_utf8_without_c0_controls(raw: str) -> None:
    text = AmplifierResult(success=True, output=raw).get_serialized_output()
    text.encode("utf-8")
    assert not any(ord(c) < 32 and c not in "\t\n\r" for c in text)


def test_from_amplifier_success_becomes_ok() -> None:
    result = from_amplifier(
        AmplifierResult(success=True, output={"n": 1}, metadata={"cost_usd": 2})
    )
    assert result == Ok('{"n": 1}', structured={"n": 1}, cost_usd=2.0)


def test_from_amplifier_keeps_a_known_error_type_as_the_code() -> None:
    result = from_amplifier(
        AmplifierResult(success=False, error={"message": "gone", "type": "not_available"})
    )
    assert result == Err("gone", ErrorCode.NOT_AVAILABLE)


def test_from_amplifier_maps_other_error_types_to_execution_failed_with_the_cause() -> None:
    result = from_amplifier(
        AmplifierResult(success=False, error={"message": "denied", "type": "PermissionError"})
    )
    assert result == Err("denied", ErrorCode.EXECUTION_FAILED, cause="PermissionError")


def test_from_amplifier_without_a_message_uses_the_output() -> None:
    result = from_amplifier(AmplifierResult(success=False, output="stderr text"))
    assert isinstance(result, Err)
    assert result.error == "stderr text"


@pytest.mark.parametrize(
    "result",
    [
        Ok("v"),
        Ok("v", cost_usd=1.5),
        Err("e", ErrorCode.INPUT_INVALID),
        Err("e", ErrorCode.STALE_WRITE),
        Err("e", ErrorCode.EXECUTION_FAILED),
    ],
)
def test_round_trip_keeps_value_message_and_code(result: Ok | Err) -> None:
    back = from_amplifier(to_amplifier(result))
    assert type(back) is type(result)
    if isinstance(result, Ok):
        assert back == result
    else:
        assert isinstance(back, Err)
        assert (back.error, back.code) == (result.error, result.code)
