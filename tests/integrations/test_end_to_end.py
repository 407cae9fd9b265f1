"""Issue 11's "done when": a pydantic-ai, an OpenAI Agents and a LangGraph agent each use the
built-in tools (read_file, write_file on a temp root) and a user's ``@tool``, with the budget
split across a response and the presenter applied, and the session's read records kept between
steps (a write over a file changed since it was read is refused with STALE_WRITE)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from integration_helpers import (
    GITHUB_PAT,
    RecordingRegistry,
    ScriptedModel,
    ToolCallingFakeModel,
    asks,
    body_of,
    function_call,
    say,
    share,
)
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.prebuilt import create_react_agent
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agents import Agent as OpenAIAgent
from agents import RunConfig, Runner
from toolwire.execution.budget import truncation_marker
from toolwire.integrations.langchain import langchain_tools
from toolwire.integrations.openai_agents import function_tools
from toolwire.integrations.pydantic_ai import ToolwireToolset

pytestmark = pytest.mark.anyio

BUDGET = 3000
MODEL_TEXT = "the model's version\n"

Calls = list[tuple[str, dict[str, Any], str]]


def steps(root: Path) -> list[tuple[Callable[[], None] | None, Calls]]:
    """The conversation: (what happens on disk before the response, the response's calls)."""

    def someone_edits() -> None:
        notes = root / "notes.txt"
        notes.write_text("edited by someone else\n", encoding="utf-8")
        later = os.stat(notes).st_mtime + 5
        os.utime(notes, (later, later))

    return [
        (
            None,
            [
                ("read_file", {"path": "notes.txt"}, "read-1"),
                ("emit_chars", {"n": 5000}, "big"),
                ("leak", {}, "leak"),
            ],
        ),
        (someone_edits, [("write_file", {"path": "notes.txt", "content": MODEL_TEXT}, "w-1")]),
        (None, [("read_file", {"path": "notes.txt"}, "read-2")]),
        (None, [("write_file", {"path": "notes.txt", "content": MODEL_TEXT}, "w-2")]),
    ]


def check(answers: dict[str, str], registry: RecordingRegistry, root: Path) -> None:
    """What every framework must show for the conversation of `steps`."""
    assert [set(b.ids) for b in registry.batches[:1]] == [{"read-1", "big", "leak"}]
    assert '<untrusted source="file:notes.txt" tool="read_file">' in answers["read-1"]
    assert "first line" in answers["read-1"]
    assert body_of(answers["big"]) == "x" * share(BUDGET, 3) + truncation_marker(5000)
    assert GITHUB_PAT not in answers["leak"]
    assert "[REDACTED:github-pat]" in answers["leak"]
    assert "STALE_WRITE" in answers["w-1"]
    assert "edited by someone else" in answers["read-2"]
    assert "STALE_WRITE" not in answers["w-2"]
    assert (root / "notes.txt").read_text(encoding="utf-8") == MODEL_TEXT


async def test_a_pydantic_ai_agent(workspace: tuple[RecordingRegistry, Path]) -> None:
    registry, root = workspace
    script = steps(root)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not script:
            return ModelResponse(parts=[TextPart("done")])
        before, calls = script.pop(0)
        if before is not None:
            before()
        return ModelResponse(
            parts=[ToolCallPart(tool_name=n, args=a, tool_call_id=i) for n, a, i in calls]
        )

    toolset = ToolwireToolset(registry, result_budget_chars=BUDGET, working_dir=str(root))
    result = await Agent(FunctionModel(respond), toolsets=[toolset]).run("go")
    answers = {
        part.tool_call_id: str(part.content)
        for message in result.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if getattr(part, "tool_call_id", None)
    }
    check(answers, registry, root)


async def test_an_openai_agents_sdk_agent(workspace: tuple[RecordingRegistry, Path]) -> None:
    registry, root = workspace

    def response(before: Callable[[], None] | None, calls: Calls) -> Callable[[], list[Any]]:
        def make() -> list[Any]:
            if before is not None:
                before()
            return [function_call(n, a, i) for n, a, i in calls]

        return make

    model = ScriptedModel(*[response(b, c) for b, c in steps(root)], [say("done")])
    tools = function_tools(registry, result_budget_chars=BUDGET, working_dir=str(root))
    agent = OpenAIAgent(name="coder", model=model, tools=tools)
    await Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True, group_id="e2e"))
    answers = {
        item["call_id"]: item["output"]
        for sent in model.inputs
        if isinstance(sent, list)
        for item in sent
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }
    check(answers, registry, root)


async def test_a_langgraph_agent(workspace: tuple[RecordingRegistry, Path]) -> None:
    registry, root = workspace

    def responses() -> Iterator[AIMessage]:
        for before, calls in steps(root):
            if before is not None:
                before()
            yield asks(*calls)
        yield AIMessage("done")

    tools = langchain_tools(registry, result_budget_chars=BUDGET, working_dir=str(root))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = create_react_agent(ToolCallingFakeModel(messages=responses()), tools)
    out = await agent.ainvoke(
        {"messages": [("user", "go")]}, {"configurable": {"thread_id": "e2e"}}
    )
    messages = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    answers = {m.tool_call_id: str(m.content) for m in messages}
    check(answers, registry, root)
    assert {m.tool_call_id: m.status for m in messages}["w-1"] == "error"
