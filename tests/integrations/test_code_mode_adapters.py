"""``run_code`` from every framework adapter, driven the way a user drives each framework
(pydantic-ai's `FunctionModel`, a scripted Agents SDK `Model`, langchain-core's fake chat model in
LangGraph's agent, amplifier-core's real coordinator): the model writes one program that calls two
registry tools with ``asyncio.gather``; the calls run as one batch through the pipeline and the
value the program returns reaches the model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from amplifier_core import ModuleCoordinator
from integration_helpers import (
    RecordingRegistry,
    ScriptedModel,
    ToolCallingFakeModel,
    asks,
    function_call,
    say,
)
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
from toolwire import tool
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.integrations.amplifier import mount
from toolwire.integrations.langchain import langchain_tools
from toolwire.integrations.openai_agents import function_tools
from toolwire.integrations.pydantic_ai import ToolwireToolset
from toolwire.stores._sqlite import SqliteKeyValueBackend
from toolwire.tool_options import ToolOptions

pytest.importorskip("pydantic_monty")
pytestmark = pytest.mark.anyio

PROGRAM = """
import asyncio
user, orders = await asyncio.gather(get_user(user_id=7), count_orders(user_id=7))
{"name": user["name"], "orders": orders["count"]}
"""
EXPECTED = {"name": "ada", "orders": 3}


@tool
async def get_user(user_id: int) -> dict[str, Any]:
    """Look a user up by id."""
    return {"id": user_id, "name": "ada"}


@tool
async def count_orders(user_id: int) -> dict[str, int]:
    """How many orders a user placed."""
    return {"count": 3}


@pytest.fixture
async def registry(tmp_path: Path) -> AsyncIterator[RecordingRegistry]:
    from toolwire.code_mode import run_code_tool

    kv = SqliteKeyValueBackend(tmp_path / "kv.db")
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    registry = RecordingRegistry(backends=backends, reducers=None)
    registry.register_all([get_user, count_orders])
    registry.register(run_code_tool(registry))
    async with registry:
        yield registry


def _returned(text: str) -> Any:
    """The program's value: the last line of the presented body (JSON)."""
    body = text.split("===\n", 1)[1] if "===\n" in text else text
    for line in reversed(body.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"no value in {text!r}")


def _inner_batches(registry: RecordingRegistry) -> list[tuple[str, ...]]:
    return [tuple(sorted(b.names)) for b in registry.batches if "run_code" not in b.names]


async def test_pydantic_ai_runs_a_program(registry: RecordingRegistry) -> None:
    shown: list[dict[str, str]] = []
    script: list[list[ToolCallPart] | str] = [
        [ToolCallPart("run_code", {"code": PROGRAM}, "p")],
        "done",
    ]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        shown.append({t.name: t.description or "" for t in info.function_tools})
        step = script.pop(0)
        return ModelResponse(parts=[TextPart(step)] if isinstance(step, str) else list(step))

    result = await PydanticAgent(FunctionModel(respond), toolsets=[ToolwireToolset(registry)]).run(
        "go"
    )
    assert "async def get_user(*, user_id: int)" in shown[0]["run_code"]
    answers = {
        part.tool_call_id: part.content
        for message in result.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    assert _returned(str(answers["p"])) == EXPECTED
    assert _inner_batches(registry) == [("count_orders", "get_user")]  # gather = one batch


async def test_the_agents_sdk_runs_a_program(registry: RecordingRegistry) -> None:
    model = ScriptedModel([function_call("run_code", {"code": PROGRAM}, "p")], [say("done")])
    agent = Agent(name="t", model=model, tools=list(function_tools(registry)))
    result = await Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True))
    assert "async def count_orders(*, user_id: int)" in next(
        t.description for t in model.tools if t.name == "run_code"
    )
    outputs = [
        item.output
        for item in result.new_items
        if getattr(item, "type", "") == "tool_call_output_item"
    ]
    assert _returned(str(outputs[0])) == EXPECTED
    assert _inner_batches(registry) == [("count_orders", "get_user")]


async def test_a_langgraph_agent_runs_a_program(registry: RecordingRegistry) -> None:
    model = ToolCallingFakeModel(
        messages=iter([asks(("run_code", {"code": PROGRAM}, "p")), AIMessage("done")])
    )
    out = await create_agent(model, langchain_tools(registry)).ainvoke(
        {"messages": [("user", "go")]}
    )
    assert any(t["function"]["name"] == "run_code" for t in model.bound)
    messages = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}
    assert _returned(str(messages["p"].content)) == EXPECTED
    assert _inner_batches(registry) == [("count_orders", "get_user")]


async def test_amplifier_mounts_and_runs_run_code(registry: RecordingRegistry) -> None:
    coordinator = ModuleCoordinator()
    cleanup = await mount(coordinator, {"registry": registry})
    try:
        run_code = coordinator.get("tools")["run_code"]
        assert "async def get_user" in run_code.description
        result = await run_code.execute({"code": PROGRAM})
        assert result.success, result
        assert _returned(str(result.output)) == EXPECTED
    finally:
        await cleanup()
    assert _inner_batches(registry) == [("count_orders", "get_user")]


SENT: list[str] = []


@tool(options=ToolOptions(requires_approval=True))
async def send_report(to: str, text: str) -> str:
    """Send a report by mail."""
    SENT.append(to)
    return f"sent to {to}"


APPROVAL_PROGRAM = """
user = await get_user(user_id=7)
await send_report(to="boss@example.com", text=user["name"])
"""


async def test_pydantic_ai_defers_a_program_waiting_for_approval_and_resumes_it(
    registry: RecordingRegistry,
) -> None:
    from pydantic_ai import DeferredToolRequests, DeferredToolResults

    registry.register(send_report)
    SENT.clear()
    script: list[list[ToolCallPart] | str] = [
        [ToolCallPart("run_code", {"code": APPROVAL_PROGRAM}, "p")],
        "done",
    ]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = script.pop(0)
        return ModelResponse(parts=[TextPart(step)] if isinstance(step, str) else list(step))

    toolset = ToolwireToolset(registry, deferred_approvals=True)
    agent = PydanticAgent(
        FunctionModel(respond), toolsets=[toolset], output_type=[str, DeferredToolRequests]
    )
    first = await agent.run("go")
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    assert [call.tool_call_id for call in requests.approvals] == ["p"]
    waiting = requests.metadata["p"]
    assert (waiting["tool_name"], waiting["via"]) == ("send_report", "run_code")
    assert waiting["args"] == {"to": "boss@example.com", "text": "ada"}
    assert SENT == []

    # a fresh toolset (another process): the token comes back in the approval's metadata
    again = PydanticAgent(
        FunctionModel(respond),
        toolsets=[ToolwireToolset(registry, deferred_approvals=True)],
        output_type=[str, DeferredToolRequests],
    )
    second = await again.run(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(
            approvals={"p": True}, metadata={"p": {"token": waiting["token"]}}
        ),
    )
    assert second.output == "done"
    assert SENT == ["boss@example.com"]
    assert [b.names for b in registry.batches if "run_code" not in b.names] == [
        ("get_user",),
        ("send_report",),  # answered approval_required: the program paused
        ("send_report",),  # approved: the program resumed from its snapshot
    ]  # get_user ran once
