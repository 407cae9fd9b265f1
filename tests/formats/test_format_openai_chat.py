"""OpenAI Chat Completions: definitions, tool calls and tool messages in the SDK's shapes."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
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
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageParam,
    ChatCompletionToolMessageParam,
)

from toolwire.calls import CallOutcome, ToolCall
from toolwire.formats import FormatError, openai_chat
from toolwire.results import ok

COMPLETION: dict[str, Any] = {
    "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    "object": "chat.completion",
    "created": 1741570283,
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": "call_DdmO9pD3xa9XTPNJ32zg2hcA",
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "arguments": '{"city":"Paris","unit":"c"}',
                        },
                    },
                    {
                        "id": "call_Xf3b",
                        "type": "function",
                        "function": {"name": "search", "arguments": ""},
                    },
                ],
                "annotations": [],
            },
            "logprobs": None,
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 82, "completion_tokens": 40, "total_tokens": 122},
    "service_tier": "default",
    "system_fingerprint": "fp_fc9f1d7035",
}

EXPECTED_CALLS = [
    ToolCall(
        id="call_DdmO9pD3xa9XTPNJ32zg2hcA", name="get_weather", args='{"city":"Paris","unit":"c"}'
    ),
    ToolCall(id="call_Xf3b", name="search", args="{}"),
]


def test_definitions_match_the_sdk_tool_param() -> None:
    for definition in openai_chat.tool_definitions([WEATHER, SEARCH]):
        assert conforms(ChatCompletionFunctionToolParam, definition)


def test_a_strictable_schema_is_sent_strict() -> None:
    (definition,) = openai_chat.tool_definitions([WEATHER])
    function = definition["function"]
    assert function["strict"] is True
    assert function["parameters"]["additionalProperties"] is False
    assert function["name"] == "get_weather"
    assert function["description"] == "Current weather for a city"


def test_an_optional_property_keeps_the_schema_non_strict_and_unchanged() -> None:
    (definition,) = openai_chat.tool_definitions([SEARCH])
    assert definition["function"]["strict"] is False
    assert definition["function"]["parameters"] == SEARCH_SCHEMA


def test_strict_false_is_never_strict() -> None:
    (definition,) = openai_chat.tool_definitions([WEATHER], strict=False)
    assert definition["function"]["strict"] is False
    assert "additionalProperties" not in definition["function"]["parameters"]


def test_strict_true_refuses_a_schema_that_cannot_be_strict() -> None:
    with pytest.raises(FormatError, match=r"'search'.*'limit' is optional"):
        openai_chat.tool_definitions([SEARCH], strict=True)


def test_definitions_never_mutate_the_tool_schema() -> None:
    before = copy.deepcopy(dict(WEATHER.schema))
    (definition,) = openai_chat.tool_definitions([WEATHER])
    definition["function"]["parameters"]["properties"]["x"] = {}
    assert dict(WEATHER.schema) == before == WEATHER_SCHEMA


def test_definitions_accept_registry_style_mappings() -> None:
    neutral = [{"name": "get_weather", "description": "d", "parameters": WEATHER_SCHEMA}]
    (definition,) = openai_chat.tool_definitions(neutral)
    assert definition["function"]["name"] == "get_weather"
    assert definition["function"]["strict"] is True


def test_parse_reads_the_raw_json_completion() -> None:
    assert openai_chat.parse_tool_calls(COMPLETION) == EXPECTED_CALLS


def test_parse_reads_the_sdk_object() -> None:
    completion = ChatCompletion.model_validate(COMPLETION)
    assert openai_chat.parse_tool_calls(completion) == EXPECTED_CALLS


def test_parse_reads_a_bare_assistant_message() -> None:
    message = COMPLETION["choices"][0]["message"]
    assert openai_chat.parse_tool_calls(message) == EXPECTED_CALLS


def test_a_text_only_answer_has_no_calls() -> None:
    completion = copy.deepcopy(COMPLETION)
    completion["choices"][0]["message"] = {"role": "assistant", "content": "Hi", "refusal": None}
    assert openai_chat.parse_tool_calls(ChatCompletion.model_validate(completion)) == []


def test_malformed_arguments_are_passed_through_for_the_registry_to_reject() -> None:
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{oops"}}
        ],
    }
    assert openai_chat.parse_tool_calls(message)[0].args == "{oops"


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f"}}]},
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {}}]},
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "custom", "custom": {}}]},
        {"unrelated": True},
    ],
)
def test_a_broken_shape_raises_format_error(message: dict[str, Any]) -> None:
    with pytest.raises(FormatError):
        openai_chat.parse_tool_calls(message)


def test_result_messages_match_the_sdk_tool_message() -> None:
    messages = openai_chat.tool_result_messages([OK_OUTCOME, ERR_OUTCOME], present=plain_present)
    assert messages == [
        {"role": "tool", "tool_call_id": "call_1", "content": "18°C, clear"},
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": "ERR not_available: Unknown tool: search",
        },
    ]
    for message in messages:
        assert conforms(ChatCompletionToolMessageParam, message)


def test_a_full_turn_round_trips_through_the_sdk_types() -> None:
    completion = ChatCompletion.model_validate(COMPLETION)
    calls = openai_chat.parse_tool_calls(completion)
    outcomes = [
        CallOutcome(tool_call_id=call.id, name=call.name, result=ok("sunny"), duration_ms=1.0)
        for call in calls
    ]
    assistant = completion.choices[0].message.model_dump(exclude_none=True)
    assistant.pop("annotations")  # a response-only field, not part of the request message
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        assistant,
        *openai_chat.tool_result_messages(outcomes, present=plain_present),
    ]
    for message in history:
        assert conforms(ChatCompletionMessageParam, message)
    answered = {m["tool_call_id"] for m in history if m["role"] == "tool"}
    assert answered == {call.id for call in calls}
    assert json.loads(json.dumps(history)) == history
