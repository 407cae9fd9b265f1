"""What every format shares: tool specs from tools or mappings, SDK dumps, presenters."""

from __future__ import annotations

import sys
from types import MappingProxyType
from typing import Any

import pytest
from format_helpers import ERR_OUTCOME, OK_OUTCOME, WEATHER, WEATHER_SCHEMA
from openai.types.chat import ChatCompletionMessage

from toolwire.calls import CallOutcome
from toolwire.formats import (
    FormatError,
    anthropic,
    gemini,
    openai_chat,
    openai_responses,
    tool_specs,
)
from toolwire.formats._common import copy_schema, to_plain

MODULES = [openai_chat, openai_responses, anthropic, gemini]


def test_tool_specs_read_tools() -> None:
    (spec,) = tool_specs([WEATHER])
    assert (spec.name, spec.description, spec.schema) == (
        "get_weather",
        "Current weather for a city",
        WEATHER_SCHEMA,
    )


@pytest.mark.parametrize(
    "mapping",
    [
        {"name": "t", "description": "d", "parameters": WEATHER_SCHEMA},
        {"name": "t", "description": "d", "input_schema": WEATHER_SCHEMA},
        {"name": "t", "description": "d", "inputSchema": WEATHER_SCHEMA},
        {
            "type": "function",
            "function": {"name": "t", "description": "d", "parameters": WEATHER_SCHEMA},
        },
    ],
)
def test_tool_specs_read_definition_mappings(mapping: dict[str, Any]) -> None:
    (spec,) = tool_specs([mapping])
    assert (spec.name, spec.description, spec.schema) == ("t", "d", WEATHER_SCHEMA)


def test_a_mapping_without_schema_means_no_arguments() -> None:
    (spec,) = tool_specs([{"name": "ping"}])
    assert spec.schema == {"type": "object", "properties": {}}
    assert spec.description == ""


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"description": "no name"}, "no 'name'"),
        ({"name": "t", "parameters": "not a schema"}, "must be an object"),
        ("get_weather", "pass Tool objects"),
    ],
)
def test_tool_specs_refuse_what_is_not_a_tool(item: Any, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        tool_specs([item])


def test_format_error_is_a_value_error() -> None:
    assert issubclass(FormatError, ValueError)


def test_copy_schema_unwraps_read_only_mappings() -> None:
    schema = MappingProxyType({"type": "object", "properties": MappingProxyType({"a": {}})})
    copied = copy_schema(schema)
    assert copied == {"type": "object", "properties": {"a": {}}}
    assert type(copied["properties"]) is dict


def test_to_plain_dumps_sdk_objects_by_api_field_names() -> None:
    message = ChatCompletionMessage(role="assistant", content="hi")
    assert to_plain(message) == {"role": "assistant", "content": "hi"}
    assert to_plain({"a": 1}) == {"a": 1}


@pytest.mark.parametrize("module", MODULES)
def test_every_module_uses_the_given_presenter_for_every_outcome(module: Any) -> None:
    seen: list[CallOutcome] = []

    def present(outcome: CallOutcome) -> str:
        seen.append(outcome)
        return "PRESENTED"

    messages = module.tool_result_messages([OK_OUTCOME, ERR_OUTCOME], present=present)
    assert seen == [OK_OUTCOME, ERR_OUTCOME]
    assert str(messages).count("PRESENTED") == 2


@pytest.mark.parametrize("module", MODULES)
def test_every_module_answers_no_outcomes_with_nothing_to_append(module: Any) -> None:
    assert module.tool_result_messages([]) == []


@pytest.mark.parametrize("module", [openai_chat, openai_responses, anthropic, gemini])
def test_every_module_builds_definitions_from_the_same_inputs(module: Any) -> None:
    assert len(module.tool_definitions([WEATHER])) == 1


@pytest.mark.parametrize("module", MODULES)
def test_without_the_presenting_module_the_fallback_shows_value_or_error(
    module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "toolwire.presenting", None)  # import now fails: absent
    text = str(module.tool_result_messages([OK_OUTCOME, ERR_OUTCOME]))
    assert "18°C, clear" in text
    assert "Error: Unknown tool: search" in text
