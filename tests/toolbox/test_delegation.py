"""``task`` with a runner of the host's own (the `SubagentRunner` protocol, in process).

The shipped Chat Completions runner is tested against a model server in ``tests/agents``;
these tests plug in small runners to pin down what the tool and `Delegation` do around any
runner: the answer and its report, failures as results, the job a runner receives.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest
from toolbox_helpers import error_of, run

from toolwire.calls import ToolCall
from toolwire.capabilities.kinds.secrets._resolvers import EnvSecretsResolver
from toolwire.capabilities.kinds.subagent import Delegation, SubagentJob, SubagentStopped
from toolwire.capabilities.kinds.subagent.kind import SUBAGENT
from toolwire.capabilities.kinds.subagent.seam import SubagentReport, SubagentUsage
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.toolbox import default_tools, delegation_tools
from toolwire.toolbox._delegation import task

pytestmark = pytest.mark.anyio

Script = Callable[[SubagentJob], Awaitable[str]]


class ScriptedRunner:
    """A runner whose loop is a test's function; it keeps the jobs it was given."""

    def __init__(self, script: Script, secret_refs: tuple[str, ...] = ()) -> None:
        self.script = script
        self.secret_refs = secret_refs
        self.jobs: list[SubagentJob] = []

    async def run(self, job: SubagentJob) -> str:
        self.jobs.append(job)
        return await self.script(job)


def registry_with(runner: ScriptedRunner, work: Path, **options: object) -> ToolRegistry:
    options.setdefault("toolsets", ("file", "delegation"))
    delegation = Delegation(runner=runner, **options)  # type: ignore[arg-type]
    backends = CapabilityBackends(
        fs_read=(str(work),),
        fs_write=(str(work),),
        secrets_resolver=EnvSecretsResolver({"providers/x/apiKey": "TOOLWIRE_TEST_X_KEY"}),
        kind_backends={"subagent": delegation},
    )
    registry = ToolRegistry(backends=backends)
    registry.register_all(default_tools())
    return registry


async def answer(text: str) -> str:
    return text


def test_task_is_a_default_tool_in_the_delegation_toolset() -> None:
    assert task in default_tools()
    assert delegation_tools() == [task]
    assert task.toolset == "delegation"
    assert task.output_is_untrusted
    assert task.capabilities.get(SUBAGENT) is not None
    assert set(task.schema["properties"]) == {"description", "prompt", "toolset"}
    assert task.schema["required"] == ["description", "prompt"]


async def test_without_a_subagent_backend_task_is_not_available_and_says_how_to_set_it_up(
    work: Path, ctx: ToolContext
) -> None:
    registry = ToolRegistry(backends=CapabilityBackends(fs_read=(str(work),)))
    registry.register_all(delegation_tools())
    error = error_of(await run(registry, ctx, "task", description="d", prompt="p"))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert "kind_backends={'subagent': Delegation(runner=...)}" in error.error


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"description": "  ", "prompt": "p"}, "description"),
        ({"description": "d" * 201, "prompt": "p"}, "description"),
        ({"description": "d", "prompt": "\n"}, "prompt"),
    ],
)
async def test_an_empty_or_overlong_argument_is_input_invalid(
    work: Path, ctx: ToolContext, args: dict[str, str], field: str
) -> None:
    runner = ScriptedRunner(lambda job: answer("never"))
    error = error_of(await run(registry_with(runner, work), ctx, "task", **args))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.field == field
    assert runner.jobs == []


async def test_the_answer_comes_back_with_its_report(work: Path, ctx: ToolContext) -> None:
    async def script(job: SubagentJob) -> str:
        job.tally.model_turn(
            usage=SubagentUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15),
            model="mine",
            tool_names=["read_file"],
        )
        outcomes = await job.registry.execute_parallel(
            [ToolCall(id="1", name="read_file", args={"path": "missing.txt"})], job.context
        )
        job.tally.tool_results(outcomes)
        job.tally.model_turn(usage=None, model="mine", text="All done.")
        return "All done."

    runner = ScriptedRunner(script)
    result = await run(registry_with(runner, work), ctx, "task", description="do", prompt="Go")
    assert isinstance(result, Ok)
    assert result.value == "All done."
    assert result.structured == {
        "description": "do",
        "stop": "final",
        "turns": 2,
        "tool_calls": [{"name": "read_file", "ok": False, "code": "execution_failed"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        "cost_usd": None,
        "model": "mine",
        "toolset": None,
        "depth": 1,
    }


async def test_the_job_holds_only_the_chosen_toolset_and_a_fresh_child_context(
    work: Path, ctx: ToolContext
) -> None:
    runner = ScriptedRunner(lambda job: answer("ok"))
    registry = registry_with(runner, work, max_turns=7, turn_budget_chars=1234)
    await run(registry, ctx, "task", description="files", prompt="Look.", toolset="file")
    (job,) = runner.jobs
    assert sorted(job.registry.names) == ["patch_file", "read_file", "search_files", "write_file"]
    assert job.max_turns == 7
    assert job.prompt == "Look."
    assert job.context.agent_id == "depth:1"
    assert job.context.result_budget_chars == 1234
    assert job.context.abort_signal is not ctx.abort_signal
    assert job.context.working_dir == ctx.working_dir
    assert job.context.read_mtimes == {}


async def test_a_runner_that_gives_up_is_an_execution_failed_result(
    work: Path, ctx: ToolContext
) -> None:
    async def script(job: SubagentJob) -> str:
        job.tally.model_turn(usage=None, model=None, text="half an idea")
        raise SubagentStopped("failed", "the model went away")

    registry = registry_with(ScriptedRunner(script), work)
    error = error_of(await run(registry, ctx, "task", description="try", prompt="Go"))
    assert error.code is ErrorCode.EXECUTION_FAILED
    assert error.cause == "failed"
    assert error.error.startswith(
        "Sub-agent 'try' stopped: the model went away (1 turn, 0 tool calls)."
    )
    assert error.error.endswith("Its last text:\nhalf an idea")


async def test_a_runner_that_crashes_is_a_result_with_secrets_redacted(
    work: Path, ctx: ToolContext
) -> None:
    leaked = "sk-ant-api03-" + "a" * 40

    async def script(job: SubagentJob) -> str:
        raise RuntimeError(f"bad header {leaked}")

    registry = registry_with(ScriptedRunner(script), work)
    error = error_of(await run(registry, ctx, "task", description="boom", prompt="Go"))
    assert "the sub-agent's runner failed: RuntimeError: bad header" in error.error
    assert leaked not in error.error


async def test_a_runner_reads_only_the_secrets_it_declared(
    work: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLWIRE_TEST_X_KEY", "value-x")
    seen: list[str] = []

    async def script(job: SubagentJob) -> str:
        assert job.secrets is not None
        seen.append(await job.secrets.get("providers/x/apiKey"))
        with pytest.raises(PermissionError):
            await job.secrets.get("providers/openai/apiKey")
        return "ok"

    registry = registry_with(ScriptedRunner(script, secret_refs=("providers/x/apiKey",)), work)
    assert isinstance(await run(registry, ctx, "task", description="s", prompt="Go"), Ok)
    assert seen == ["value-x"]


async def test_an_empty_answer_says_there_was_none(work: Path, ctx: ToolContext) -> None:
    registry = registry_with(ScriptedRunner(lambda job: answer("  ")), work)
    result = await run(registry, ctx, "task", description="quiet", prompt="Go")
    assert isinstance(result, Ok)
    assert result.value == "(the sub-agent finished without writing an answer)"


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_runner_over_its_time_is_cancelled_on_either_backend(
    work: Path, ctx: ToolContext, anyio_backend: str
) -> None:
    stopped: list[bool] = []

    async def script(job: SubagentJob) -> str:
        try:
            await anyio.sleep_forever()
        finally:
            stopped.append(job.context.abort_signal.aborted)
        return "never"

    registry = registry_with(ScriptedRunner(script), work, timeout_s=0.2)
    error = error_of(await run(registry, ctx, "task", description="slow", prompt="Go"))
    assert error.cause == "timeout"
    assert len(stopped) == 1  # the runner was cancelled, not left running


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_aborting_the_parent_cancels_the_runner_on_either_backend(
    work: Path, ctx: ToolContext, anyio_backend: str
) -> None:
    started = anyio.Event()
    child_signals: list[bool] = []

    async def script(job: SubagentJob) -> str:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            child_signals.append(job.context.abort_signal.aborted)
        return "never"

    reports: list[SubagentReport] = []
    registry = registry_with(ScriptedRunner(script), work, on_report=reports.append)
    results = []
    async with anyio.create_task_group() as group:

        async def call() -> None:
            results.append(await run(registry, ctx, "task", description="d", prompt="Go"))

        group.start_soon(call)
        await started.wait()
        ctx.abort_signal.abort("stop now")
    assert "aborted: stop now" in error_of(results[0]).error
    assert child_signals == [True]
    (report,) = reports  # the host hears of the aborted run too
    assert (report.stop, report.error) == ("aborted", "aborted: stop now")
