"""`function_tools` inside OpenAI Agents SDK runs, driven by a scripted `Model`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from agents.run_config import ToolExecutionConfig
from agents.tool_context import ToolContext as ToolContextSDK
from integration_helpers import (
    GITHUB_PAT,
    RecordingRegistry,
    ScriptedModel,
    body_of,
    function_call,
    say,
    share,
)

from agents import Agent, FunctionTool, RunConfig, RunContextWrapper, Runner
from toolwire import ErrorCode, ToolContext
from toolwire.execution.budget import truncation_marker
from toolwire.integrations.openai_agents import ToolCallFailed, function_tools

pytestmark = pytest.mark.anyio


def outputs(model: ScriptedModel) -> dict[str, str]:
    """The tool outputs the model was sent, by call id."""
    found: dict[str, str] = {}
    for sent in model.inputs:
        for item in sent if isinstance(sent, list) else []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                found[item["call_id"]] = item["output"]
    return found


async def run(model: ScriptedModel, tools: list[FunctionTool], context: Any = None) -> Any:
    agent = Agent(name="t", model=model, tools=tools)
    config = RunConfig(tracing_disabled=True, group_id="conv-3")
    return await Runner.run(agent, "go", context=context, run_config=config)


async def test_the_calls_of_one_response_are_one_batch_trimmed_to_their_shares(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model = ScriptedModel(
        [
            function_call("emit_chars", {"n": 300}, "a"),
            function_call("emit_chars", {"n": 300}, "b"),
        ],
        [say("done")],
    )
    await run(model, function_tools(registry, result_budget_chars=200, working_dir=str(root)))
    assert [batch.ids for batch in registry.batches] == [("a", "b")]
    for text in outputs(model).values():
        assert body_of(text) == "x" * share(200, 2) + truncation_marker(300)


async def test_results_are_presented_and_failures_are_the_presented_error(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model = ScriptedModel(
        [
            function_call("read_file", {"path": "notes.txt"}, "r"),
            function_call("leak", {}, "l"),
            function_call("shout", {"text": 3}, "bad"),
        ],
        [say("done")],
    )
    await run(model, function_tools(registry, working_dir=str(root)))
    sent = outputs(model)
    assert '<untrusted source="file:notes.txt" tool="read_file">' in sent["r"]
    assert GITHUB_PAT not in sent["l"]
    assert "[REDACTED:github-pat]" in sent["l"]
    assert sent["bad"].startswith("Invalid arguments for shout: text:")


async def test_the_tool_context_comes_from_the_run(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model = ScriptedModel(
        [function_call("describe_context", {}, "c1")],
        [function_call("describe_context", {}, "c2")],
        [say("done")],
    )
    await run(model, function_tools(registry, result_budget_chars=900, working_dir=str(root)))
    sent = outputs(model)
    assert "session=conv-3 turn=1" in sent["c1"]
    assert "platform=openai-agents budget=900" in sent["c1"]
    assert "session=conv-3 turn=2" in sent["c2"]


async def test_a_run_context_that_is_a_tool_context_is_the_base(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model = ScriptedModel([function_call("describe_context", {}, "c")], [say("done")])
    base = ToolContext(session_id="mine", working_dir=str(root), platform="web")
    await run(model, function_tools(registry), context=base)
    assert "session=mine turn=1" in outputs(model)["c"]
    assert "platform=web" in outputs(model)["c"]


async def test_function_tools_carry_the_registrys_definitions_strict_where_kept(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, _ = workspace
    tools = {t.name: t for t in function_tools(registry)}
    assert list(tools) == registry.names
    assert tools["shout"].strict_json_schema is True
    assert tools["shout"].params_json_schema["required"] == ["text"]
    assert tools["pick"].strict_json_schema is False
    assert tools["pick"].params_json_schema == dict(registry.get("pick").schema)  # type: ignore[union-attr]


async def test_calls_held_back_by_a_concurrency_limit_run_on_their_own_without_a_hang(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model = ScriptedModel(
        [function_call("shout", {"text": "a"}, "a"), function_call("shout", {"text": "b"}, "b")],
        [say("done")],
    )
    agent = Agent(name="t", model=model, tools=function_tools(registry, working_dir=str(root)))
    config = RunConfig(
        tracing_disabled=True,
        tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1),
    )
    await Runner.run(agent, "go", run_config=config)
    assert [batch.ids for batch in registry.batches] == [("a",), ("b",)]
    assert outputs(model)["b"] == "===TOOL_RESULT_START:shout===\nB\n===TOOL_RESULT_END==="


async def test_a_run_without_a_group_id_has_a_session_of_its_own(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = function_tools(registry, working_dir=str(root))
    config = RunConfig(tracing_disabled=True)
    model = ScriptedModel(
        [function_call("describe_context", {}, "a1")],
        [function_call("describe_context", {}, "a2")],
        [say("done")],
        [function_call("describe_context", {}, "b1")],
        [say("done")],
    )
    agent = Agent(name="t", model=model, tools=tools)
    await Runner.run(agent, "first", run_config=config)
    await Runner.run(agent, "second", run_config=config)
    sessions = {k: v.split("session=")[1].split()[0] for k, v in outputs(model).items()}
    assert sessions["a1"] == sessions["a2"]  # one run: one session across its turns
    assert sessions["a1"].startswith("openai-agents:")
    assert sessions["b1"] != sessions["a1"]


async def test_an_unrelated_runs_reads_do_not_make_a_write_stale(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = function_tools(registry, working_dir=str(root))
    config = RunConfig(tracing_disabled=True)
    model = ScriptedModel(
        [function_call("read_file", {"path": "notes.txt"}, "read")],
        [say("done")],
        [function_call("write_file", {"path": "notes.txt", "content": "new\n"}, "write")],
        [say("done")],
    )
    agent = Agent(name="t", model=model, tools=tools)
    await Runner.run(agent, "read it", run_config=config)
    (root / "notes.txt").write_text("changed meanwhile\n", encoding="utf-8")
    os.utime(root / "notes.txt", (1, 1))  # a different time from the one the read saw
    await Runner.run(agent, "write it", run_config=config)
    assert "STALE_WRITE" not in outputs(model)["write"].upper()
    assert (root / "notes.txt").read_text(encoding="utf-8") == "new\n"


async def test_runs_with_one_group_id_share_their_read_records(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    tools = function_tools(registry, working_dir=str(root))
    config = RunConfig(tracing_disabled=True, group_id="one-conversation")
    model = ScriptedModel(
        [function_call("read_file", {"path": "notes.txt"}, "read")],
        [say("done")],
        [function_call("write_file", {"path": "notes.txt", "content": "new\n"}, "write")],
        [say("done")],
    )
    agent = Agent(name="t", model=model, tools=tools)
    await Runner.run(agent, "read it", run_config=config)
    (root / "notes.txt").write_text("changed meanwhile\n", encoding="utf-8")
    os.utime(root / "notes.txt", (1, 1))
    await Runner.run(agent, "write it", run_config=config)
    assert "stale_write" in outputs(model)["write"].lower()
    assert (root / "notes.txt").read_text(encoding="utf-8") == "changed meanwhile\n"


async def test_the_sdks_failure_error_function_formats_failures(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    handed: list[tuple[str | None, BaseException]] = []

    async def formatter(ctx: RunContextWrapper[Any], error: Exception) -> str:
        assert isinstance(ctx, ToolContextSDK)
        handed.append((ctx.tool_call_id, error))
        return "the tool failed; try something else"

    model = ScriptedModel(
        [function_call("shout", {"text": 3}, "bad"), function_call("shout", {"text": "a"}, "ok")],
        [say("done")],
    )
    await run(
        model, function_tools(registry, working_dir=str(root), failure_error_function=formatter)
    )
    sent = outputs(model)
    assert sent["bad"] == "the tool failed; try something else"
    assert sent["ok"].startswith("===TOOL_RESULT_START:shout===")
    [(call_id, error)] = handed
    assert call_id == "bad"
    assert isinstance(error, ToolCallFailed)
    assert error.code is ErrorCode.INPUT_INVALID
    assert str(error).startswith("Invalid arguments for shout")


async def test_failure_error_function_none_fails_the_run_as_in_the_sdk(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    model = ScriptedModel([function_call("shout", {"text": 3}, "bad")], [say("done")])
    tools = function_tools(registry, working_dir=str(root), failure_error_function=None)
    with pytest.raises(Exception) as raised:
        await run(model, tools)
    chain: list[BaseException] = []
    error: BaseException | None = raised.value
    while error is not None:
        chain.append(error)
        error = error.__cause__ or error.__context__
    assert any(isinstance(e, ToolCallFailed) for e in chain)
