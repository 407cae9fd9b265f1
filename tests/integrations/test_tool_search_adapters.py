"""Tool search in each framework, the framework's way: the model is shown ``tool_search`` and
the undeferred tools, finds a deferred one, is shown it from its next step and calls it; a
call to a deferred tool its session never found answers ``not_offered``.

Driven by each framework's own test model (pydantic-ai's `FunctionModel`, a scripted Agents
SDK `Model`, langchain-core's fake chat model)."""

from __future__ import annotations

from typing import Any

import pytest
from integration_helpers import ScriptedModel, ToolCallingFakeModel, asks, function_call, say
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agents import Agent, RunConfig, Runner
from toolwire import ToolOptions, ToolRegistry, tool
from toolwire.integrations.langchain import langchain_tools
from toolwire.integrations.langchain_search import ToolSearchMiddleware
from toolwire.integrations.openai_agents import function_tools
from toolwire.integrations.pydantic_ai import ToolwireToolset

pytestmark = pytest.mark.anyio

SEARCH = {"query": "open a ticket"}
OFFERED = {"read_notes", "tool_search"}


@tool(options=ToolOptions(defer_loading=True))
async def create_issue(title: str) -> str:
    """Create a new issue in a GitHub repository.

    Args:
        title: Issue title.
    """
    return f"created {title!r}"


@tool
async def read_notes() -> str:
    """Read the user's notes."""
    return "buy milk"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register_all([create_issue, read_notes])
    return registry


async def test_pydantic_ai_offers_what_the_run_found_from_its_next_step() -> None:
    shown: list[set[str]] = []
    script: list[list[ToolCallPart] | str] = [
        [ToolCallPart("tool_search", SEARCH, "s")],
        [ToolCallPart("create_issue", {"title": "Crash"}, "c")],
        "done",
    ]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        shown.append({t.name for t in info.function_tools})
        step = script.pop(0)
        return ModelResponse(parts=[TextPart(step)] if isinstance(step, str) else list(step))

    toolset = ToolwireToolset(_registry())
    result = await PydanticAgent(FunctionModel(respond), toolsets=[toolset]).run("go")
    assert shown[0] == OFFERED
    assert shown[1] == OFFERED | {"create_issue"}
    answers = {
        part.tool_call_id: part.content
        for message in result.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    assert "created 'Crash'" in str(answers["c"])


async def test_pydantic_ai_refuses_a_deferred_tool_the_run_never_found() -> None:
    registry = _registry()
    toolset = ToolwireToolset(registry)
    outcomes = await toolset.binding._run_batch(
        [_call("create_issue", {"title": "x"})], _context("never-searched")
    )
    assert outcomes[0].result.reason == "not_offered"  # type: ignore[union-attr]


async def test_the_agents_sdk_enables_what_the_run_found() -> None:
    tools = function_tools(_registry())
    names: list[set[str]] = []

    def searched() -> list[Any]:
        return [function_call("create_issue", {"title": "Crash"}, "c")]

    model = ScriptedModel([function_call("tool_search", SEARCH, "s")], searched, [say("done")])
    original = model.get_response

    async def recording(*args: Any, **kwargs: Any) -> Any:
        sent = kwargs["tools"] if "tools" in kwargs else args[3]
        names.append({t.name for t in sent})
        return await original(*args, **kwargs)

    model.get_response = recording  # type: ignore[method-assign]
    agent = Agent(name="t", model=model, tools=list(tools))
    result = await Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True))
    assert names[0] == OFFERED
    assert names[1] == OFFERED | {"create_issue"}
    outputs = [
        item.output
        for item in result.new_items
        if getattr(item, "type", "") == "tool_call_output_item"
    ]
    assert any("created 'Crash'" in str(output) for output in outputs)


async def test_a_langgraph_agent_binds_each_call_to_what_its_thread_found() -> None:
    tools = langchain_tools(_registry(), deferred=True)
    bound: list[set[str]] = []

    class Recording(ToolCallingFakeModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            bound.append({t.name for t in tools})
            return super().bind_tools(tools, **kwargs)

    model = Recording(
        messages=iter(
            [
                asks(("tool_search", SEARCH, "s")),
                asks(("create_issue", {"title": "Crash"}, "c")),
                AIMessage("done"),
            ]
        )
    )
    agent = create_agent(model, tools, middleware=[ToolSearchMiddleware()])
    config = {"configurable": {"thread_id": "t1"}}
    out = await agent.ainvoke({"messages": [("user", "go")]}, config)  # type: ignore[arg-type]
    assert bound[0] == OFFERED
    assert bound[1] == OFFERED | {"create_issue"}
    messages = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}
    assert "created 'Crash'" in str(messages["c"].content)

    other = Recording(messages=iter([asks(("create_issue", {"title": "x"}, "x")), AIMessage("ok")]))
    again = create_agent(other, tools, middleware=[ToolSearchMiddleware()])
    out = await again.ainvoke(
        {"messages": [("user", "go")]},
        {"configurable": {"thread_id": "t2"}},  # type: ignore[arg-type]
    )
    assert bound[-2] == OFFERED  # thread t2 found nothing
    refused = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}["x"]
    assert refused.status == "error"
    assert "not offered" in str(refused.content)


def _call(name: str, args: dict[str, Any]) -> Any:
    from toolwire.calls import ToolCall

    return ToolCall(id="c1", name=name, args=args)


def _context(session: str) -> Any:
    from toolwire import ToolContext

    return ToolContext(session_id=session)
