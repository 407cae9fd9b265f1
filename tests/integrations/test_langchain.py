"""`langchain_tools` in LangGraph's ToolNode and prebuilt agent, with a fake chat model."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from integration_helpers import (
    GITHUB_PAT,
    RecordingRegistry,
    ToolCallingFakeModel,
    asks,
    body_of,
    share,
)
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, create_react_agent

from toolwire import ToolContext
from toolwire.execution.budget import truncation_marker
from toolwire.integrations.langchain import ToolwireTool, langchain_tools

pytestmark = pytest.mark.anyio


def tool_messages(messages: list[BaseMessage]) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}


def react_agent(model: ToolCallingFakeModel, tools: list[ToolwireTool]) -> Any:
    with warnings.catch_warnings():  # moved to langchain.agents, which is not a dependency
        warnings.simplefilter("ignore")
        return create_react_agent(model, tools)


def tool_graph(tools: list[ToolwireTool]) -> Any:
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    return graph.compile()


async def test_a_tool_node_step_is_one_batch_trimmed_to_the_shares(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = langchain_tools(registry, result_budget_chars=300, working_dir=str(root))
    calls = [("emit_chars", {"n": 500}, f"c{i}") for i in range(3)]
    out = await tool_graph(tools).ainvoke({"messages": [asks(*calls)]})
    assert [batch.ids for batch in registry.batches] == [("c0", "c1", "c2")]
    for message in tool_messages(out["messages"]).values():
        assert message.status == "success"
        assert body_of(str(message.content)) == "x" * share(300, 3) + truncation_marker(500)


async def test_failures_are_error_tool_messages_with_the_presented_error(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = langchain_tools(registry, working_dir=str(root))
    message = asks(("shout", {"text": 3}, "bad"), ("read_file", {"path": "nope.txt"}, "gone"))
    out = await tool_graph(tools).ainvoke({"messages": [message]})
    answers = tool_messages(out["messages"])
    assert answers["bad"].status == "error"
    assert str(answers["bad"].content).startswith("Invalid arguments for shout: text:")
    assert answers["gone"].status == "error"
    assert "nope.txt" in str(answers["gone"].content)


async def test_the_prebuilt_agent_runs_a_response_as_one_batch_presented(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = langchain_tools(registry, result_budget_chars=400, working_dir=str(root))
    model = ToolCallingFakeModel(
        messages=iter(
            [
                asks(
                    ("emit_chars", {"n": 1000}, "e"),
                    ("leak", {}, "l"),
                    ("read_file", {"path": "notes.txt"}, "r"),
                    ("describe_context", {}, "d"),
                ),
                AIMessage("done"),
            ]
        )
    )
    agent = react_agent(model, tools)
    out = await agent.ainvoke(
        {"messages": [("user", "go")]}, {"configurable": {"thread_id": "thread-9"}}
    )
    assert [set(b.ids) for b in registry.batches] == [{"e", "l", "r", "d"}]
    answers = tool_messages(out["messages"])
    assert body_of(str(answers["e"].content)) == "x" * share(400, 4) + truncation_marker(1000)
    assert GITHUB_PAT not in str(answers["l"].content)
    assert "[REDACTED:github-pat]" in str(answers["l"].content)
    assert '<untrusted source="file:notes.txt" tool="read_file">' in str(answers["r"].content)
    assert "session=thread-9" in str(answers["d"].content)
    assert "platform=langgraph" in str(answers["d"].content)
    assert out["messages"][-1].content == "done"


async def test_bind_tools_sends_the_registrys_definitions(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, _ = workspace
    model = ToolCallingFakeModel(messages=iter([AIMessage("done")]))
    await react_agent(model, langchain_tools(registry)).ainvoke({"messages": [("user", "hi")]})
    functions = {t["function"]["name"]: t["function"] for t in model.bound}
    assert list(functions) == registry.names
    assert functions["shout"]["parameters"]["additionalProperties"] is False
    assert functions["shout"]["parameters"]["required"] == ["text"]


async def test_a_context_function_gets_the_runnable_config(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = langchain_tools(
        registry,
        context=lambda config: ToolContext(
            session_id=f"user-{config['configurable']['user']}", working_dir=str(root)
        ),
    )
    out = await tool_graph(tools).ainvoke(
        {"messages": [asks(("describe_context", {}, "d"))]}, {"configurable": {"user": "ada"}}
    )
    assert "session=user-ada" in str(tool_messages(out["messages"])["d"].content)


async def test_a_direct_call_outside_a_graph_runs_alone(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    [shout] = [t for t in langchain_tools(registry, working_dir=str(root)) if t.name == "shout"]
    answer = await shout.ainvoke(
        {"name": "shout", "args": {"text": "hi"}, "id": "x", "type": "tool_call"}
    )
    assert isinstance(answer, ToolMessage)
    assert answer.content == "===TOOL_RESULT_START:shout===\nHI\n===TOOL_RESULT_END==="
    assert registry.batches[-1].ids == ("x",)
