"""Provider-native tool search: what toolwire emits validates as the SDKs' types, and what the
providers load keeps the session's snapshot consistent."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Message, ToolResultBlockParam, ToolUnionParam
from openai.types.responses import Response, ResponseInputItemParam, ToolParam
from ts_helpers import catalogue, conforms, make

from toolwire.calls import ToolCall
from toolwire.context import ToolContext
from toolwire.errors import FormatError
from toolwire.formats import anthropic, openai_responses
from toolwire.providers._base import ProviderContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok
from toolwire.tool_search import ToolSearch

pytestmark = pytest.mark.anyio

CREATE = "mcp__jira__jira_create_issue"


def _setup() -> tuple[ToolRegistry, ToolSearch]:
    registry = ToolRegistry()
    registry.register(make("always_there", "Always offered.", defer=False))
    registry.register_all(catalogue())
    search = registry.tool_search
    assert isinstance(search, ToolSearch)
    return registry, search


async def _run(registry: ToolRegistry, search: ToolSearch, session: str, name: str) -> Any:
    snapshot = await search.snapshot(ProviderContext(session_id=session))
    outcomes = await registry.execute_parallel(
        [ToolCall(id="c1", name=name, args={})],
        ToolContext(session_id=session),
        snapshot=snapshot,
    )
    return outcomes[0].result


def test_openai_deferred_functions_namespaces_and_the_search_tool() -> None:
    registry, search = _setup()
    definitions = openai_responses.tool_definitions(
        search.native_tools(),
        deferred=registry.deferred_names,
        namespaces={"github": "GitHub issues", "jira": "Jira tickets"},
    )
    for definition in definitions:
        assert conforms(ToolParam, definition)
    assert definitions[-1] == {"type": "tool_search"}
    by_name = {d.get("name"): d for d in definitions}
    assert "defer_loading" not in by_name["always_there"]
    assert by_name["mcp__slack__slack_post_message"]["defer_loading"] is True
    github = by_name["github"]
    assert github["type"] == "namespace"
    assert github["description"] == "GitHub issues"
    assert [t["name"] for t in github["tools"]] == [
        "mcp__github__create_issue",
        "mcp__github__list_issues",
    ]
    assert all(t["defer_loading"] is True for t in github["tools"])
    assert "tool_search" not in by_name  # the built-in is not sent beside the provider's


def test_openai_without_anything_deferred_adds_no_search_tool() -> None:
    definitions = openai_responses.tool_definitions([make("a", "A.", defer=False)])
    assert [d["type"] for d in definitions] == ["function"]


def test_openai_client_search_tool_and_allowed_callers_pass_through() -> None:
    tools = [
        {
            "name": "a",
            "description": "A.",
            "parameters": {"type": "object"},
            "allowed_callers": ["programmatic"],
        },
        {"name": "b", "description": "B.", "parameters": {"type": "object"}},
    ]
    definitions = openai_responses.tool_definitions(tools, deferred={"b"}, tool_search="client")
    for definition in definitions:
        assert conforms(ToolParam, definition)
    assert definitions[0]["allowed_callers"] == ["programmatic"]
    assert definitions[-1]["execution"] == "client"
    with pytest.raises(FormatError):
        openai_responses.tool_definitions(tools, deferred={"b"}, tool_search="elsewhere")  # type: ignore[arg-type]


OPENAI_RESPONSE: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-5.4",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {
            "type": "tool_search_call",
            "id": "ts_1",
            "call_id": None,
            "execution": "server",
            "arguments": {"paths": ["jira"]},
            "status": "completed",
        },
        {
            "type": "tool_search_output",
            "id": "tso_1",
            "call_id": None,
            "execution": "server",
            "status": "completed",
            "tools": [
                {
                    "type": "namespace",
                    "name": "jira",
                    "description": "Jira tickets",
                    "tools": [
                        {
                            "type": "function",
                            "name": CREATE,
                            "parameters": {},
                            "defer_loading": True,
                        }
                    ],
                },
                {"type": "function", "name": "always_there", "parameters": {}},
            ],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": CREATE,
            "namespace": "jira",
            "arguments": "{}",
            "status": "completed",
            "caller": {"type": "program", "caller_id": "prog_1"},
        },
    ],
}


async def test_openai_loaded_tools_become_callable_in_that_session_only() -> None:
    registry, search = _setup()
    response = Response.model_validate(OPENAI_RESPONSE)
    loaded = openai_responses.loaded_tools(response)
    assert loaded == [CREATE, "always_there"]
    assert await search.mark_found("s1", loaded) == [CREATE]  # always_there is not deferred
    calls = openai_responses.parse_tool_calls(response)
    assert [c.name for c in calls] == [CREATE]
    assert await _run(registry, search, "s1", CREATE) == Ok("ran for s1")
    other = await _run(registry, search, "s2", CREATE)
    assert isinstance(other, Err)
    assert openai_responses.tool_callers(response) == {
        "call_1": {"type": "program", "caller_id": "prog_1"}
    }


async def test_openai_client_search_answered_by_toolwire() -> None:
    registry, search = _setup()
    items = [
        {
            "type": "tool_search_call",
            "id": "ts_1",
            "call_id": "call_s",
            "execution": "client",
            "arguments": {"query": "file a ticket in jira", "limit": 2},
            "status": "completed",
        },
    ]
    (request,) = openai_responses.parse_tool_search_calls(items)
    assert (request.call_id, request.query, request.limit) == ("call_s", "file a ticket in jira", 2)
    hits = search.search(request.query, request.limit)
    await search.mark_found("s1", [hit.name for hit in hits])
    output = openai_responses.tool_search_output(
        request.call_id, [t for t in catalogue() if t.name in {h.name for h in hits}]
    )
    assert conforms(ResponseInputItemParam, output)
    assert CREATE in [tool["name"] for tool in output["tools"]]
    assert await _run(registry, search, "s1", CREATE) == Ok("ran for s1")


def test_anthropic_deferred_tools_and_its_search_tool() -> None:
    registry, search = _setup()
    definitions = anthropic.tool_definitions(
        search.native_tools(), deferred=registry.deferred_names
    )
    for definition in definitions:
        assert conforms(ToolUnionParam, definition)
    assert definitions[-1] == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
    }
    by_name = {d["name"]: d for d in definitions}
    assert "defer_loading" not in by_name["always_there"]
    assert by_name[CREATE]["defer_loading"] is True
    regex = anthropic.tool_definitions(catalogue(), deferred={CREATE}, tool_search="regex")
    assert regex[-1]["type"] == "tool_search_tool_regex_20251119"
    own = anthropic.tool_definitions(catalogue(), deferred={CREATE}, tool_search=None)
    assert all("type" not in d for d in own)
    with pytest.raises(FormatError):
        anthropic.tool_definitions(catalogue(), tool_search="vector")  # type: ignore[arg-type]


def test_anthropic_allowed_callers_pass_through() -> None:
    tools = [
        {
            "name": "a",
            "description": "A.",
            "input_schema": {"type": "object"},
            "allowed_callers": ["code_execution_20250825"],
        }
    ]
    (definition,) = anthropic.tool_definitions(tools)
    assert definition["allowed_callers"] == ["code_execution_20250825"]
    assert conforms(ToolUnionParam, definition)


ANTHROPIC_MESSAGE: dict[str, Any] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
    "content": [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "tool_search_tool_bm25",
            "input": {"query": "jira ticket"},
        },
        {
            "type": "tool_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": CREATE}],
            },
        },
        {
            "type": "tool_use",
            "id": "toolu_1",
            "name": CREATE,
            "input": {},
            "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_2"},
        },
    ],
}


async def test_anthropic_loaded_tools_become_callable_in_that_session_only() -> None:
    registry, search = _setup()
    message = Message.model_validate(ANTHROPIC_MESSAGE)
    assert anthropic.loaded_tools(message) == [CREATE]
    await search.mark_found("s1", anthropic.loaded_tools(message))
    (call,) = anthropic.parse_tool_calls(message)
    assert call.name == CREATE
    assert await _run(registry, search, "s1", CREATE) == Ok("ran for s1")
    assert isinstance(await _run(registry, search, "s2", CREATE), Err)
    assert anthropic.tool_callers(message) == {
        "toolu_1": {"type": "code_execution_20250825", "tool_id": "srvtoolu_2"}
    }


async def test_anthropic_own_search_answered_with_tool_references() -> None:
    registry, search = _setup()
    outcome = await registry.execute(
        "tool_search", {"query": "file a ticket in jira"}, ToolContext(session_id="s1")
    )
    assert isinstance(outcome.result, Ok)
    assert outcome.result.structured is not None
    names = [t["name"] for t in outcome.result.structured["tools"]]
    block = anthropic.tool_reference_result("toolu_9", names)
    assert conforms(ToolResultBlockParam, block)
    assert anthropic.loaded_tools([block]) == names
    empty = anthropic.tool_reference_result("toolu_9", [])
    assert empty["content"] == [{"type": "text", "text": "No tool matches."}]
    assert await _run(registry, search, "s1", CREATE) == Ok("ran for s1")
