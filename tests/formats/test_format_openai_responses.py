"""OpenAI Responses API: function tools, function_call items, function_call_output items."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from format_helpers import (
    ERR_OUTCOME,
    OK_OUTCOME,
    SEARCH,
    SEARCH_SCHEMA,
    WEATHER,
    conforms,
    plain_present,
)
from openai.types.responses import FunctionToolParam, Response, ResponseInputItemParam
from openai.types.responses.response_input_param import FunctionCallOutput

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats import FormatError, openai_responses
from toolwire.results import ok

RESPONSE: dict[str, Any] = {
    "id": "resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41",
    "object": "response",
    "created_at": 1741476777,
    "status": "completed",
    "error": None,
    "incomplete_details": None,
    "instructions": None,
    "max_output_tokens": None,
    "model": "gpt-4o-2024-08-06",
    "output": [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
        },
        {
            "type": "function_call",
            "id": "fc_67ccd3aa5cf881908b0e1ee5d1fe6b6f",
            "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k",
            "name": "get_weather",
            "arguments": '{"city":"Paris","unit":"c"}',
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_2",
            "name": "search",
            "arguments": '{"query":"toolwire"}',
            "status": "completed",
        },
    ],
    "parallel_tool_calls": True,
    "previous_response_id": None,
    "reasoning": {"effort": None, "summary": None},
    "store": True,
    "temperature": 1.0,
    "text": {"format": {"type": "text"}},
    "tool_choice": "auto",
    "tools": [],
    "top_p": 1.0,
    "truncation": "disabled",
    "usage": {
        "input_tokens": 291,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 23,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 314,
    },
    "user": None,
    "metadata": {},
}

EXPECTED = [
    ToolCall(
        id="call_unLAR8MvFNptuiZK6K6HCy5k", name="get_weather", args='{"city":"Paris","unit":"c"}'
    ),
    ToolCall(id="call_2", name="search", args='{"query":"toolwire"}'),
]


def test_definitions_match_the_sdk_function_tool_param() -> None:
    for definition in openai_responses.tool_definitions([WEATHER, SEARCH]):
        assert conforms(FunctionToolParam, definition)


def test_strict_is_always_explicit_because_the_api_defaults_it_to_true() -> None:
    strict, loose = openai_responses.tool_definitions([WEATHER, SEARCH])
    assert strict["strict"] is True
    assert strict["parameters"]["additionalProperties"] is False
    assert loose["strict"] is False
    assert loose["parameters"] == SEARCH_SCHEMA


def test_definitions_are_flat_not_nested_under_function() -> None:
    (definition,) = openai_responses.tool_definitions([WEATHER])
    assert set(definition) == {"type", "name", "description", "parameters", "strict"}


def test_strict_true_refuses_a_non_strict_schema() -> None:
    with pytest.raises(FormatError):
        openai_responses.tool_definitions([SEARCH], strict=True)


def test_parse_uses_call_id_and_skips_other_items() -> None:
    assert openai_responses.parse_tool_calls(RESPONSE) == EXPECTED


def test_parse_reads_the_sdk_object() -> None:
    assert openai_responses.parse_tool_calls(Response.model_validate(RESPONSE)) == EXPECTED


def test_parse_reads_a_list_of_sdk_output_items() -> None:
    items = Response.model_validate(RESPONSE).output
    assert openai_responses.parse_tool_calls(items) == EXPECTED


def test_a_function_call_without_call_id_raises() -> None:
    broken = copy.deepcopy(RESPONSE)
    del broken["output"][1]["call_id"]
    with pytest.raises(FormatError, match="call_id"):
        openai_responses.parse_tool_calls(broken)


def test_result_items_match_the_sdk_function_call_output() -> None:
    items = openai_responses.tool_result_messages([OK_OUTCOME, ERR_OUTCOME], present=plain_present)
    assert items == [
        {"type": "function_call_output", "call_id": "call_1", "output": "18°C, clear"},
        {
            "type": "function_call_output",
            "call_id": "call_2",
            "output": "ERR not_available: Unknown tool: search",
        },
    ]
    for item in items:
        assert conforms(FunctionCallOutput, item)
        assert conforms(ResponseInputItemParam, item)


def test_output_items_answer_every_call_of_the_response() -> None:
    calls = openai_responses.parse_tool_calls(Response.model_validate(RESPONSE))
    outcomes = [
        CallOutcome(tool_call_id=call.id, name=call.name, result=ok("done"), duration_ms=0.0)
        for call in calls
    ]
    items = openai_responses.tool_result_messages(outcomes, present=plain_present)
    assert [item["call_id"] for item in items] == [call.id for call in calls]
