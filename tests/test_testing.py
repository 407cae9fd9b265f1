"""toolwire.testing: the harness runs real seams on throwaway backends, and the scripted
model speaks each provider's real wire format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from anthropic.types import Message
from google.genai.types import GenerateContentResponse
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from toolwire import ToolContext, tool
from toolwire.capabilities import fs_reach, process, secrets, storage
from toolwire.results import Ok
from toolwire.testing import (
    ScriptedCall,
    ScriptedModel,
    ScriptMismatchError,
    ToolHarness,
    call,
    create_test_registry,
    make_context,
    run_script,
)

pytestmark = pytest.mark.anyio

FORMATS = ["openai_chat", "openai_responses", "anthropic", "gemini"]
SDK_RESPONSE: dict[str, Any] = {
    "openai_chat": ChatCompletion,
    "openai_responses": Response,
    "anthropic": Message,
    "gemini": GenerateContentResponse,
}


@tool
async def add(a: int, b: int) -> str:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
    """
    return str(a + b)


@tool(capabilities=[fs_reach(read="from-personality")])
async def first_line(path: str, ctx: ToolContext) -> str:
    """The first line of a file.

    Args:
        path: The file, relative to the working directory.
    """
    assert ctx.scoped_fs is not None
    return (await ctx.scoped_fs.read(path)).splitlines()[0]


@tool(capabilities=[storage("session")])
async def count(ctx: ToolContext) -> str:
    """Count the calls of this session."""
    assert ctx.kv_store is not None
    seen = int(await ctx.kv_store.get("n") or "0") + 1
    await ctx.kv_store.set("n", str(seen))
    return str(seen)


@tool(capabilities=[secrets(["providers/exa/apiKey"])])
async def key_length(ctx: ToolContext) -> str:
    """The length of the Exa key."""
    assert ctx.secrets_resolver is not None
    return str(len(await ctx.secrets_resolver.get("providers/exa/apiKey")))


async def test_the_harness_reads_files_from_its_own_temporary_root() -> None:
    async with ToolHarness(first_line) as harness:
        (harness.root / "notes.txt").write_text("hello\nworld\n")
        outcome = await harness.call("first_line", path="notes.txt")
        root = harness.root
        assert outcome.result == Ok("hello")
        outside = await harness.call("first_line", path="/etc/hostname")
        assert not outside.result.ok
        assert outside.result.error.startswith("PATH_NOT_REACHABLE")
    assert not root.exists()


async def test_the_harness_keeps_state_in_memory_per_session() -> None:
    async with ToolHarness(count) as harness:
        answers = [(await harness.call("count")).result for _ in range(3)]
        assert answers == [Ok("1"), Ok("2"), Ok("3")]
        assert not (harness.root / ".toolwire" / "state.db").exists()


async def test_secrets_come_from_the_test_not_the_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EXA_API_KEY", "machine-key-1234567")  # what create_backends would read
    async with ToolHarness(key_length, secrets={"providers/exa/apiKey": "k" * 12}) as harness:
        assert (await harness.call("key_length")).result == Ok("12")
    async with ToolHarness(key_length) as harness:
        missing = (await harness.call("key_length")).result
        assert not missing.ok
        assert "not configured" in missing.error


async def test_a_given_root_is_kept(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("kept\n")
    async with ToolHarness(first_line, root=tmp_path) as harness:
        assert (await harness.call("first_line", {"path": "a.txt"})).result == Ok("kept")
    assert (tmp_path / "a.txt").exists()


async def test_builtins_come_with_the_command_guard() -> None:
    async with ToolHarness(builtins=True) as harness:
        assert "read_file" in harness.registry
        refused = await harness.call("terminal", command="rm -rf /")
        assert not refused.result.ok
        assert "blocked" in harness.present(refused).lower()


async def test_create_test_registry_and_make_context_compose(tmp_path: Path) -> None:
    registry = create_test_registry([add], root=tmp_path)
    async with registry:
        ctx = make_context(tmp_path, current_turn=3)
        assert (ctx.session_id, ctx.working_dir, ctx.current_turn) == (
            "test-session",
            str(tmp_path),
            3,
        )
        assert (await registry.execute("add", {"a": 2, "b": 3}, ctx)).result == Ok("5")


@pytest.mark.parametrize("format", FORMATS)
async def test_the_scripted_model_collects_every_result_in_each_format(format: Any) -> None:
    model = ScriptedModel(
        format,
        [[call("add", a=1, b=2), call("add", a="one", b=2)], [call("nope")]],
        final_text="all done",
    )
    async with ToolHarness(add) as harness:
        results = await run_script(model, harness.registry, harness.context())
    assert model.done
    assert [r.name for r in results] == ["add", "add", "nope"]
    assert "3" in results[0].text
    assert "a" in results[1].text  # the validation message names the field
    assert "Unknown tool: nope" in results[2].text
    if format in ("anthropic", "gemini"):
        assert [r.is_error for r in results] == [False, True, True]
    else:
        assert {r.is_error for r in results} == {None}


@pytest.mark.parametrize("format", FORMATS)
async def test_scripted_responses_are_valid_sdk_responses(format: Any) -> None:
    model = ScriptedModel(format, [[call("add", a=1, b=2)]])
    async with ToolHarness(add) as harness:
        await run_script(model, harness.registry, harness.context())
    for response in model.responses:
        SDK_RESPONSE[format].model_validate(response)
    assert len(model.responses) == 2  # the calls, then the closing text


async def test_malformed_arguments_reach_the_registry_as_sent() -> None:
    model = ScriptedModel("openai_chat", [[call("add", '{"a": 1,')]])
    async with ToolHarness(add) as harness:
        (result,) = await run_script(model, harness.registry, harness.context())
    assert "input_invalid" in result.text or "JSON" in result.text


async def test_gemini_calls_with_ids_keep_them() -> None:
    model = ScriptedModel("gemini", [[ScriptedCall(name="add", args={"a": 1, "b": 1}, id="g1")]])
    async with ToolHarness(add) as harness:
        (result,) = await run_script(model, harness.registry, harness.context())
    assert result.tool_call_id == "g1"


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        ([], "without a result"),
        ([("call_1_0", "x"), ("call_1_0", "y")], "answered twice"),
        ([("call_1_0", "x"), ("other", "y")], "no pending call"),
    ],
)
def test_the_model_refuses_results_that_do_not_match_its_calls(
    answers: list[tuple[str, str]], problem: str
) -> None:
    model = ScriptedModel("openai_chat", [[call("add", a=1, b=2)]])
    model.respond()
    messages = [{"role": "tool", "tool_call_id": cid, "content": text} for cid, text in answers]
    with pytest.raises(ScriptMismatchError, match=problem):
        model.respond(messages)


def test_anthropic_cannot_carry_arguments_that_are_not_an_object() -> None:
    model = ScriptedModel("anthropic", [[call("add", "[1, 2]")]])
    with pytest.raises(ValueError, match="JSON object"):
        model.respond()


def test_the_chat_response_carries_the_arguments_as_a_json_string() -> None:
    model = ScriptedModel("openai_chat", [[call("add", a=1, b=2)]])
    response = model.respond()
    (tool_call,) = response["choices"][0]["message"]["tool_calls"]
    assert json.loads(tool_call["function"]["arguments"]) == {"a": 1, "b": 2}


@tool(capabilities=[process(["git"]), fs_reach(read="from-personality")])
async def last_commit(ctx: ToolContext) -> str:
    """The subject of the last commit in the working directory."""
    assert ctx.scoped_process is not None
    done = await ctx.scoped_process.spawn("git", ["log", "-1", "--format=%s"])
    return done.stdout.strip() or done.stderr


async def test_a_process_tool_runs_on_the_harness_root() -> None:
    git = shutil.which("git")
    assert git is not None, "git is needed"
    async with ToolHarness(last_commit) as harness:
        await anyio.run_process([git, "init", "-q", str(harness.root)])
        await anyio.run_process(
            [git, "-C", str(harness.root), "-c", "user.email=t@example.com", "-c",
             "user.name=t", "commit", "-q", "--allow-empty", "-m", "first commit"]
        )  # fmt: skip
        assert (await harness.call("last_commit")).result == Ok("first commit")
