"""`langchain_tools` in LangChain 1.x's `create_agent` (the agent LangGraph 1.x points to), run
synchronously as well as asynchronously, each graph invocation in a session of its own unless a
``thread_id`` ties invocations together. Driven by langchain-core's fake chat model."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from integration_helpers import (
    RecordingRegistry,
    ToolCallingFakeModel,
    asks,
    body_of,
    share,
)
from integration_helpers import shout as shout_tool
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from toolwire import ToolRegistry
from toolwire.errors import ConfigurationError
from toolwire.execution.budget import truncation_marker
from toolwire.integrations._sync import run_sync
from toolwire.integrations.langchain import langchain_tools

pytestmark = pytest.mark.anyio


def tool_messages(messages: list[BaseMessage]) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}


def session_of(message: ToolMessage) -> str:
    return str(message.content).split("session=")[1].split()[0]


def scripted(*replies: AIMessage) -> ToolCallingFakeModel:
    return ToolCallingFakeModel(messages=iter(replies))


async def test_create_agent_runs_a_response_as_one_batch_presented(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = langchain_tools(registry, result_budget_chars=300, working_dir=str(root))
    model = scripted(
        asks(("emit_chars", {"n": 1000}, "a"), ("emit_chars", {"n": 1000}, "b")),
        AIMessage("done"),
    )
    out = await create_agent(model, tools).ainvoke({"messages": [("user", "go")]})
    assert [set(b.ids) for b in registry.batches] == [{"a", "b"}]
    for message in tool_messages(out["messages"]).values():
        assert body_of(str(message.content)) == "x" * share(300, 2) + truncation_marker(1000)
    assert out["messages"][-1].content == "done"


async def test_each_invocation_without_a_thread_id_has_a_session_of_its_own(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model = scripted(
        asks(("describe_context", {}, "a1")),
        asks(("describe_context", {}, "a2")),
        AIMessage("done"),
        asks(("describe_context", {}, "b1")),
        AIMessage("done"),
    )
    agent = create_agent(model, langchain_tools(registry, working_dir=str(root)))
    first = tool_messages((await agent.ainvoke({"messages": [("user", "one")]}))["messages"])
    second = tool_messages((await agent.ainvoke({"messages": [("user", "two")]}))["messages"])
    assert session_of(first["a1"]) == session_of(first["a2"])  # one invocation, one session
    assert session_of(first["a1"]).startswith("langgraph:")
    assert session_of(second["b1"]) != session_of(first["a1"])


async def read_then_write(
    workspace: tuple[RecordingRegistry, Path], config: dict[str, Any]
) -> ToolMessage:
    """One invocation reads notes.txt, the file changes, another invocation writes it."""
    registry, root = workspace
    model = scripted(
        asks(("read_file", {"path": "notes.txt"}, "read")),
        AIMessage("done"),
        asks(("write_file", {"path": "notes.txt", "content": "new\n"}, "write")),
        AIMessage("done"),
    )
    agent = create_agent(model, langchain_tools(registry, working_dir=str(root)))
    await agent.ainvoke({"messages": [("user", "read it")]}, config)
    (root / "notes.txt").write_text("changed meanwhile\n", encoding="utf-8")
    os.utime(root / "notes.txt", (1, 1))  # a different time from the one the read saw
    out = await agent.ainvoke({"messages": [("user", "write it")]}, config)
    return tool_messages(out["messages"])["write"]


async def test_an_unrelated_invocations_reads_do_not_make_a_write_stale(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    write = await read_then_write(workspace, {})
    assert write.status == "success", write.content
    assert (workspace[1] / "notes.txt").read_text(encoding="utf-8") == "new\n"


async def test_invocations_of_one_thread_share_their_read_records(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    write = await read_then_write(workspace, {"configurable": {"thread_id": "t-1"}})
    assert write.status == "error"
    assert "STALE_WRITE" in str(write.content)
    assert (workspace[1] / "notes.txt").read_text(encoding="utf-8") == "changed meanwhile\n"


async def test_the_synchronous_invoke_of_a_graph_runs_the_tools(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = langchain_tools(registry, result_budget_chars=300, working_dir=str(root))
    model = scripted(
        asks(("read_file", {"path": "notes.txt"}, "r"), ("shout", {"text": 3}, "bad")),
        AIMessage("done"),
    )
    agent = create_agent(model, tools)
    out = await anyio.to_thread.run_sync(agent.invoke, {"messages": [("user", "go")]})
    answers = tool_messages(out["messages"])
    assert answers["r"].status == "success"
    assert '<untrusted source="file:notes.txt" tool="read_file">' in str(answers["r"].content)
    assert answers["bad"].status == "error"
    assert str(answers["bad"].content).startswith("Invalid arguments for shout: text:")
    assert out["messages"][-1].content == "done"


def test_a_tool_invoked_synchronously_in_a_plain_script_runs() -> None:
    registry = ToolRegistry()
    registry.register(shout_tool)
    [shout] = langchain_tools(registry)
    assert (
        shout.invoke({"text": "hi"}) == "===TOOL_RESULT_START:shout===\nHI\n===TOOL_RESULT_END==="
    )
    message = shout.invoke(
        {"name": "shout", "args": {"text": "yo"}, "id": "c", "type": "tool_call"}
    )
    assert isinstance(message, ToolMessage)
    assert message.tool_call_id == "c"
    assert "YO" in str(message.content)


def test_a_synchronous_call_from_a_call_on_the_background_loop_is_refused() -> None:
    async def nested() -> None:
        run_sync(lambda: anyio.lowlevel.checkpoint())  # would wait for the loop it blocks

    with pytest.raises(ConfigurationError, match="await it"):
        run_sync(nested)
