"""`ToolwireToolset` inside pydantic-ai agents, driven by `FunctionModel` and `TestModel`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from integration_helpers import GITHUB_PAT, RecordingRegistry, body_of, share
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from toolwire import ToolContext, static_tools
from toolwire.execution.budget import truncation_marker
from toolwire.integrations.pydantic_ai import ToolwireToolset

pytestmark = pytest.mark.anyio

Step = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def scripted(*responses: list[ToolCallPart] | str) -> tuple[FunctionModel, list[AgentInfo]]:
    """A model that answers each request with the next response; records what it was shown."""
    script = list(responses)
    shown: list[AgentInfo] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        shown.append(info)
        step = script.pop(0)
        if isinstance(step, str):
            return ModelResponse(parts=[TextPart(step)])
        return ModelResponse(parts=list(step))

    return FunctionModel(respond), shown


def returns(messages: Sequence[ModelMessage]) -> dict[str, Any]:
    """Every tool answer the model received, by call id."""
    found: dict[str, Any] = {}
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                call_id = getattr(part, "tool_call_id", None)
                if call_id is not None:
                    found[call_id] = part
    return found


def call(name: str, args: dict[str, Any], call_id: str) -> ToolCallPart:
    return ToolCallPart(tool_name=name, args=args, tool_call_id=call_id)


async def test_the_calls_of_one_response_are_one_batch_trimmed_to_their_shares(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted(
        [call("emit_chars", {"n": 300}, "a"), call("emit_chars", {"n": 300}, "b")], "done"
    )
    toolset = ToolwireToolset(registry, result_budget_chars=200, working_dir=str(root))
    result = await Agent(model, toolsets=[toolset]).run("go")
    assert [batch.ids for batch in registry.batches] == [("a", "b")]
    answers = returns(result.all_messages())
    for call_id in ("a", "b"):
        body = body_of(answers[call_id].content)
        assert body == "x" * share(200, 2) + truncation_marker(300)


async def test_a_response_of_different_tools_is_one_batch_and_each_result_is_presented(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted(
        [
            call("read_file", {"path": "notes.txt"}, "r"),
            call("leak", {}, "l"),
            call("shout", {"text": "hi"}, "s"),
        ],
        "done",
    )
    toolset = ToolwireToolset(registry, working_dir=str(root))
    result = await Agent(model, toolsets=[toolset]).run("go")
    assert [batch.names for batch in registry.batches] == [("read_file", "leak", "shout")]
    answers = returns(result.all_messages())
    assert '<untrusted source="file:notes.txt" tool="read_file">' in answers["r"].content
    assert "first line" in answers["r"].content
    assert GITHUB_PAT not in answers["l"].content
    assert "[REDACTED:github-pat]" in answers["l"].content
    assert answers["s"].content == "===TOOL_RESULT_START:shout===\nHI\n===TOOL_RESULT_END==="


async def test_invalid_arguments_are_a_retry_the_model_can_answer(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted(
        [call("shout", {"text": 3}, "bad")], [call("shout", {"text": "ok"}, "good")], "done"
    )
    toolset = ToolwireToolset(registry, working_dir=str(root))
    result = await Agent(model, toolsets=[toolset]).run("go")
    answers = returns(result.all_messages())
    assert answers["bad"].outcome == "retried"
    assert "Invalid arguments for shout" in answers["bad"].model_response_str()
    assert answers["good"].outcome == "success"
    assert result.output == "done"


async def test_invalid_arguments_past_max_retries_end_the_run_as_pydantic_ai_does(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted([call("shout", {"text": 3}, "1")], [call("shout", {"text": 4}, "2")])
    toolset = ToolwireToolset(registry, working_dir=str(root), max_retries=1)
    with pytest.raises(Exception, match="exceeded max retries"):
        await Agent(model, toolsets=[toolset]).run("go")


async def test_other_failures_are_failed_results_the_model_reads(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted([call("read_file", {"path": "missing.txt"}, "m")], "done")
    toolset = ToolwireToolset(registry, working_dir=str(root))
    result = await Agent(model, toolsets=[toolset]).run("go")
    answer = returns(result.all_messages())["m"]
    assert answer.outcome == "failed"
    assert "missing.txt" in answer.content


async def test_the_tool_context_comes_from_the_run(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted(
        [call("describe_context", {}, "c1")], [call("describe_context", {}, "c2")], "done"
    )
    toolset = ToolwireToolset(registry, result_budget_chars=5000, working_dir=str(root))
    result = await Agent(model, toolsets=[toolset]).run("go", conversation_id="conv-7")
    answers = returns(result.all_messages())
    assert (
        f"session=conv-7 turn=1 messages=2 platform=pydantic-ai budget=5000 dir={root}"
        in answers["c1"].content
    )
    assert "turn=2 messages=4" in answers["c2"].content


async def test_deps_that_are_a_tool_context_are_the_base_context(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted([call("describe_context", {}, "c")], "done")
    agent = Agent(model, deps_type=ToolContext, toolsets=[ToolwireToolset(registry)])
    deps = ToolContext(session_id="from-deps", working_dir=str(root), platform="web")
    result = await agent.run("go", deps=deps)
    text = returns(result.all_messages())["c"].content
    assert "session=from-deps turn=1 messages=2 platform=web" in text


async def test_a_context_function_reads_the_users_deps(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted([call("describe_context", {}, "c")], "done")
    toolset: ToolwireToolset[dict[str, str]] = ToolwireToolset(
        registry,
        context=lambda run: ToolContext(
            session_id=f"user-{run.deps['user']}", working_dir=str(root)
        ),
    )
    agent = Agent(model, deps_type=dict, toolsets=[toolset])
    result = await agent.run("go", deps={"user": "ada"})
    assert "session=user-ada" in returns(result.all_messages())["c"].content


async def test_definitions_are_strict_where_the_meaning_is_kept(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, _ = workspace
    model, shown = scripted("done")
    await Agent(model, toolsets=[ToolwireToolset(registry)]).run("go")
    tools = {t.name: t for t in shown[0].function_tools}
    assert list(tools) == registry.names
    assert tools["shout"].strict is True
    assert tools["shout"].parameters_json_schema["additionalProperties"] is False
    assert tools["pick"].strict is False
    assert tools["pick"].parameters_json_schema == dict(registry.get("pick").schema)  # type: ignore[union-attr]


async def test_a_provider_chooses_the_tools_of_each_step(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, _ = workspace
    model, shown = scripted("done")
    only = [registry.get("shout")]
    toolset = ToolwireToolset(registry, provider=static_tools(only))  # type: ignore[list-item]
    await Agent(model, toolsets=[toolset]).run("go")
    assert [t.name for t in shown[0].function_tools] == ["shout"]


async def test_pydantic_ais_test_model_can_call_every_tool(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model = TestModel(call_tools=["shout", "emit_chars", "leak"])
    toolset = ToolwireToolset(registry, working_dir=str(root))
    result = await Agent(model, toolsets=[toolset]).run("go")
    assert [set(batch.names) for batch in registry.batches] == [{"shout", "emit_chars", "leak"}]
    assert "[REDACTED:github-pat]" in result.output


async def test_a_framework_barrier_splits_the_batch_without_a_hang_and_keeps_the_shares(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model, _ = scripted(
        [
            call("emit_chars", {"n": 300}, "before"),
            call("barrier", {}, "b"),
            call("emit_chars", {"n": 300}, "after"),
        ],
        "done",
    )
    toolset = ToolwireToolset(registry, result_budget_chars=200, working_dir=str(root))
    agent = Agent(model, toolsets=[toolset])

    @agent.tool_plain(sequential=True)
    def barrier() -> str:
        """Runs alone: pydantic-ai finishes the calls before it first."""
        return "ok"

    result = await agent.run("go")
    assert [batch.ids for batch in registry.batches] == [("before",), ("after",)]
    answers = returns(result.all_messages())
    for call_id in ("before", "after"):  # each still gets half, as in one batch of two
        assert body_of(answers[call_id].content) == "x" * share(200, 2) + truncation_marker(300)
