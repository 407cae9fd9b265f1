"""Google Gemini: declarations, function calls (with and without ids), function responses."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from format_helpers import ERR_OUTCOME, OK_OUTCOME, SEARCH, WEATHER, WEATHER_SCHEMA, plain_present
from google.genai import types
from hypothesis import given
from hypothesis import strategies as st

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats import FormatError, GeminiCallIds, gemini
from toolwire.results import ok

RESPONSE: dict[str, Any] = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Let me look that up."},
                    {
                        "functionCall": {
                            "name": "get_weather",
                            "args": {"city": "Paris", "unit": "c"},
                        }
                    },
                    {"functionCall": {"name": "search", "args": {"query": "toolwire"}}},
                    {
                        "functionCall": {
                            "name": "get_weather",
                            "args": {"city": "Oslo", "unit": "c"},
                        }
                    },
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 30, "totalTokenCount": 150},
    "modelVersion": "gemini-2.5-flash",
    "responseId": "rX4kaPqHGdqHnvgP8pGN0Qo",
}


def _outcomes(calls: list[ToolCall]) -> list[CallOutcome]:
    return [
        CallOutcome(tool_call_id=c.id, name=c.name, result=ok(f"r{i}"), duration_ms=0.0)
        for i, c in enumerate(calls)
    ]


def test_definitions_are_one_tool_of_function_declarations() -> None:
    definitions = gemini.tool_definitions([WEATHER, SEARCH])
    (tool,) = [types.Tool.model_validate(d) for d in definitions]
    assert tool.function_declarations is not None
    first = tool.function_declarations[0]
    assert first.name == "get_weather"
    assert first.description == "Current weather for a city"
    assert first.parameters_json_schema == WEATHER_SCHEMA


def test_definitions_work_as_sdk_config() -> None:
    config = types.GenerateContentConfig(tools=gemini.tool_definitions([WEATHER]))  # type: ignore[arg-type]
    assert config.tools is not None


def test_no_tools_give_no_definitions() -> None:
    assert gemini.tool_definitions([]) == []


def test_strict_is_refused_because_gemini_has_none() -> None:
    with pytest.raises(FormatError, match="no strict mode"):
        gemini.tool_definitions([WEATHER], strict=True)


def test_calls_without_ids_get_stable_synthetic_ids() -> None:
    first, _ = gemini.read_tool_calls(RESPONSE)
    second, _ = gemini.read_tool_calls(copy.deepcopy(RESPONSE))
    assert [c.id for c in first] == [c.id for c in second]
    assert len({c.id for c in first}) == 3
    assert first[0].id.startswith("gemini-0-")
    assert first[0] == ToolCall(
        id=first[0].id, name="get_weather", args={"city": "Paris", "unit": "c"}
    )


def test_synthetic_ids_do_not_depend_on_argument_key_order() -> None:
    a = gemini.synthetic_call_id(0, "f", {"x": 1, "y": 2})
    b = gemini.synthetic_call_id(0, "f", {"y": 2, "x": 1})
    assert a == b
    assert a != gemini.synthetic_call_id(1, "f", {"x": 1, "y": 2})


@given(st.integers(0, 50), st.dictionaries(st.text(max_size=5), st.integers(), max_size=4))
def test_synthetic_id_shape(index: int, args: dict[str, int]) -> None:
    call_id = gemini.synthetic_call_id(index, "tool", args)
    prefix, number, digest = call_id.split("-")
    assert (prefix, int(number), len(digest)) == ("gemini", index, 8)


def test_parse_reads_the_sdk_response_object() -> None:
    sdk = types.GenerateContentResponse.model_validate(RESPONSE)
    assert gemini.parse_tool_calls(sdk) == gemini.parse_tool_calls(RESPONSE)


def test_parse_reads_snake_case_dumps_too() -> None:
    sdk = types.GenerateContentResponse.model_validate(RESPONSE)
    snake = sdk.model_dump(exclude_none=True)
    assert gemini.parse_tool_calls(snake) == gemini.parse_tool_calls(RESPONSE)


def test_real_ids_are_kept_and_echoed_back() -> None:
    response = copy.deepcopy(RESPONSE)
    response["candidates"][0]["content"]["parts"][1]["functionCall"]["id"] = "fc-real-1"
    calls, ids = gemini.read_tool_calls(types.GenerateContentResponse.model_validate(response))
    assert calls[0].id == "fc-real-1"
    message = gemini.tool_result_message(_outcomes(calls), present=plain_present, call_ids=ids)
    content = types.Content.model_validate(message)
    assert content.parts is not None
    responses = [part.function_response for part in content.parts]
    assert responses[0] is not None
    assert responses[0].id == "fc-real-1"
    assert all(r is not None and r.id is None for r in responses[1:])


def test_results_follow_the_call_order_even_when_outcomes_do_not() -> None:
    calls, ids = gemini.read_tool_calls(RESPONSE)
    shuffled = list(reversed(_outcomes(calls)))
    message = gemini.tool_result_message(shuffled, present=plain_present, call_ids=ids)
    parts = message["parts"]
    assert [p["functionResponse"]["name"] for p in parts] == [
        "get_weather",
        "search",
        "get_weather",
    ]
    assert [p["functionResponse"]["response"]["output"] for p in parts] == ["r0", "r1", "r2"]


def test_synthetic_ids_never_reach_gemini() -> None:
    calls, _ = gemini.read_tool_calls(RESPONSE)
    message = gemini.tool_result_message(_outcomes(calls), present=plain_present)
    assert all("id" not in part["functionResponse"] for part in message["parts"])


def test_a_missing_outcome_is_refused_with_call_ids() -> None:
    calls, ids = gemini.read_tool_calls(RESPONSE)
    with pytest.raises(FormatError, match="has no outcome"):
        gemini.tool_result_message(_outcomes(calls)[:2], present=plain_present, call_ids=ids)


def test_a_foreign_outcome_is_refused_with_call_ids() -> None:
    calls, ids = gemini.read_tool_calls(RESPONSE)
    with pytest.raises(FormatError, match="answers no call"):
        gemini.tool_result_message(
            [*_outcomes(calls), OK_OUTCOME], present=plain_present, call_ids=ids
        )


def test_errors_go_under_error_and_values_under_output() -> None:
    message = gemini.tool_result_message([OK_OUTCOME, ERR_OUTCOME], present=plain_present)
    content = types.Content.model_validate(message)
    assert content.role == "user"
    assert content.parts is not None
    ok_part, err_part = (part.function_response for part in content.parts)
    assert ok_part is not None
    assert ok_part.response == {"output": "18°C, clear"}
    assert err_part is not None
    assert err_part.response == {"error": "ERR not_available: Unknown tool: search"}
    assert (ok_part.name, ok_part.id) == ("get_weather", "call_1")


def test_call_ids_map_back_to_name_and_position() -> None:
    calls, ids = gemini.read_tool_calls(RESPONSE)
    ref = ids.get(calls[2].id)
    assert ref is not None
    assert (ref.name, ref.index, ref.api_id) == ("get_weather", 2, None)
    assert GeminiCallIds().get("nope") is None


def test_a_content_without_calls_has_none() -> None:
    content = {"role": "model", "parts": [{"text": "Paris is sunny."}]}
    assert gemini.parse_tool_calls(types.Content.model_validate(content)) == []


def test_a_full_turn_round_trips_through_the_sdk_types() -> None:
    response = types.GenerateContentResponse.model_validate(RESPONSE)
    calls, ids = gemini.read_tool_calls(response)
    assert response.candidates is not None
    history = [
        types.Content(role="user", parts=[types.Part(text="Weather?")]),
        response.candidates[0].content,
        types.Content.model_validate(
            gemini.tool_result_message(_outcomes(calls), present=plain_present, call_ids=ids)
        ),
    ]
    last = history[-1]
    assert last is not None
    assert last.parts is not None
    names = [p.function_response.name for p in last.parts if p.function_response]
    assert names == [c.name for c in calls]
