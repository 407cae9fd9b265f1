"""Anthropic Messages: tools, tool_use blocks, one user message of tool_result blocks."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from anthropic.types import Message, MessageParam, ToolParam, ToolResultBlockParam
from format_helpers import (
    ERR_OUTCOME,
    OK_OUTCOME,
    SEARCH,
    SEARCH_SCHEMA,
    WEATHER,
    WEATHER_SCHEMA,
    conforms,
    plain_present,
)

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats import FormatError
from toolwire.formats import anthropic as fmt
from toolwire.results import ok

MESSAGE: dict[str, Any] = {
    "id": "msg_01Aq9w938a90dw8q",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [
        {"type": "text", "text": "I'll check the weather and search."},
        {
            "type": "tool_use",
            "id": "toolu_01A09q90qw90lq917835lq9",
            "name": "get_weather",
            "input": {"city": "Paris", "unit": "c"},
        },
        {"type": "tool_use", "id": "toolu_02", "name": "search", "input": {}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 472, "output_tokens": 91},
}

EXPECTED = [
    ToolCall(
        id="toolu_01A09q90qw90lq917835lq9", name="get_weather", args={"city": "Paris", "unit": "c"}
    ),
    ToolCall(id="toolu_02", name="search", args={}),
]


def test_definitions_match_the_sdk_tool_param() -> None:
    definitions = fmt.tool_definitions([WEATHER, SEARCH])
    assert definitions[1] == {
        "name": "search",
        "description": "Search the web",
        "input_schema": SEARCH_SCHEMA,
    }
    for definition in definitions:
        assert conforms(ToolParam, definition)


def test_strict_true_closes_the_schema_and_sets_strict() -> None:
    (definition,) = fmt.tool_definitions([WEATHER], strict=True)
    assert definition["strict"] is True
    assert definition["input_schema"]["additionalProperties"] is False
    assert conforms(ToolParam, definition)


def test_strict_true_refuses_an_optional_property() -> None:
    with pytest.raises(FormatError, match="'search'"):
        fmt.tool_definitions([SEARCH], strict=True)


def test_definitions_copy_the_schema() -> None:
    (definition,) = fmt.tool_definitions([WEATHER])
    definition["input_schema"]["properties"].clear()
    assert WEATHER.schema == WEATHER_SCHEMA


def test_parse_reads_the_raw_json_message() -> None:
    assert fmt.parse_tool_calls(MESSAGE) == EXPECTED


def test_parse_reads_the_sdk_message() -> None:
    assert fmt.parse_tool_calls(Message.model_validate(MESSAGE)) == EXPECTED


def test_parse_reads_a_list_of_sdk_content_blocks() -> None:
    assert fmt.parse_tool_calls(Message.model_validate(MESSAGE).content) == EXPECTED


def test_a_text_only_message_has_no_calls() -> None:
    message = copy.deepcopy(MESSAGE)
    message["content"] = [{"type": "text", "text": "Hello"}]
    message["stop_reason"] = "end_turn"
    assert fmt.parse_tool_calls(Message.model_validate(message)) == []


def test_a_tool_use_without_id_raises() -> None:
    with pytest.raises(FormatError, match="needs 'id'"):
        fmt.parse_tool_calls({"content": [{"type": "tool_use", "name": "x", "input": {}}]})


def test_result_is_one_user_message_with_is_error_on_err() -> None:
    message = fmt.tool_result_message([OK_OUTCOME, ERR_OUTCOME], present=plain_present)
    assert message == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "18°C, clear"},
            {
                "type": "tool_result",
                "tool_use_id": "call_2",
                "content": "ERR not_available: Unknown tool: search",
                "is_error": True,
            },
        ],
    }
    assert conforms(MessageParam, message)
    for block in message["content"]:
        assert conforms(ToolResultBlockParam, block)


def test_an_empty_batch_is_refused_as_a_message_and_empty_as_a_list() -> None:
    with pytest.raises(FormatError):
        fmt.tool_result_message([])
    assert fmt.tool_result_messages([]) == []


def test_a_full_turn_round_trips_through_the_sdk_types() -> None:
    message = Message.model_validate(MESSAGE)
    calls = fmt.parse_tool_calls(message)
    outcomes = [
        CallOutcome(tool_call_id=c.id, name=c.name, result=ok("done"), duration_ms=1.0)
        for c in calls
    ]
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": message.model_dump(exclude_none=True)["content"]},
        *fmt.tool_result_messages(outcomes, present=plain_present),
    ]
    for entry in history:
        assert conforms(MessageParam, entry)
    answered = [block["tool_use_id"] for block in history[2]["content"]]
    assert answered == [call.id for call in calls]
