"""`McpProvider` calling tools that run as tasks, against a server written on the SDK
(`servers/sdk_tasks_server.py`, over stdio) on both protocol generations: 2025-11-25 tools that
require task augmentation are offered and called as tasks; on 2026-07-28 the client declares
the Tasks extension and follows the tasks the server answers. Results, failures, lost tasks,
aborts and timeouts (which cancel the remote task) map to the right results."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
import pytest
from mcp_helpers import SERVERS, WAIT_S, stdio_config, wait_until

from toolwire import Err, Ok, ToolContext
from toolwire.context import AbortSignal, ProgressEvent
from toolwire.mcp import McpProvider
from toolwire.mcp.client.handlers import ClientHandlers
from toolwire.mcp.client.tasks import TasksClientExtension
from toolwire.results import ErrorCode, ToolResult

pytestmark = pytest.mark.anyio

TASKS_SERVER = SERVERS / "sdk_tasks_server.py"
POLL_S = 0.150  # the server's pollInterval
REVISIONS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


@pytest.fixture(scope="module", params=["legacy", "auto"])
async def provider(request: pytest.FixtureRequest, markers: Path) -> AsyncIterator[McpProvider]:
    config = stdio_config("jobs", TASKS_SERVER, markers, protocol=request.param)
    async with McpProvider(config) as connected:
        link = connected.connection.link
        assert link is not None
        assert link.client.protocol_version == REVISIONS[request.param]
        yield connected


async def call(
    provider: McpProvider, bare: str, args: dict[str, Any], signal: AbortSignal | None = None
) -> ToolResult:
    tool = next(t for t in provider.tools if t.name == f"mcp__jobs__{bare}")
    ctx = ToolContext(session_id="task-calls", abort_signal=signal or AbortSignal())
    with anyio.fail_after(WAIT_S):
        return await tool.execute(args, ctx)


def _gaps(markers: Path, tag: str) -> list[float]:
    polls = markers / f"polls-{tag}"
    return [float(line) for line in polls.read_text().split()] if polls.exists() else []


async def test_tools_that_require_a_task_are_offered(provider: McpProvider) -> None:
    names = {tool.name for tool in provider.tools}
    assert {"mcp__jobs__crunch", "mcp__jobs__stuck", "mcp__jobs__plain"} <= names


async def test_a_task_is_polled_at_the_servers_interval_and_its_result_returned(
    provider: McpProvider, markers: Path
) -> None:
    tag = f"crunch-{provider.connection.link.client.protocol_version}"  # type: ignore[union-attr]
    result = await call(provider, "crunch", {"seconds": 0.5, "n": 7, "tag": tag})
    assert isinstance(result, Ok)
    assert result.value == "crunched 7"
    gaps = _gaps(markers, tag)
    assert gaps, "the task was polled more than once"
    assert min(gaps) >= POLL_S * 0.9  # never faster than the server asked


async def test_a_tasks_status_messages_and_progress_reach_the_callers_emitter(
    provider: McpProvider,
) -> None:
    events: list[ProgressEvent] = []
    tool = next(t for t in provider.tools if t.name == "mcp__jobs__reports")
    ctx = ToolContext(session_id="task-progress", emit=events.append)
    with anyio.fail_after(WAIT_S):
        result = await tool.execute({}, ctx)
    assert isinstance(result, Ok)
    assert result.value == "reported"
    statuses = [e.message for e in events if e.message.startswith("step")]
    assert statuses == ["step 1 of 2", "step 2 of 2"]  # each new statusMessage, once
    assert {e.tool_name for e in events} == {"mcp__jobs__reports"}
    progress = [(e.message, e.percent) for e in events if e.percent is not None]
    if provider.connection.link.client.protocol_version == "2025-11-25":  # type: ignore[union-attr]
        assert progress == [("crunching 1/2", 50.0), ("crunching 2/2", 100.0)]
    else:  # 2026-07-28: a task's progress notifications are not followed (task_client.py)
        assert progress == []


async def test_a_plain_tool_is_called_directly(provider: McpProvider) -> None:
    result = await call(provider, "plain", {})
    assert isinstance(result, Ok)
    assert result.value == "plain answer"


async def test_a_task_whose_tool_failed_is_execution_failed(provider: McpProvider) -> None:
    result = await call(provider, "flop", {"seconds": 0.1})
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED
    assert "did not add up" in result.error


async def test_a_task_that_failed_with_a_protocol_error_is_execution_failed(
    provider: McpProvider,
) -> None:
    result = await call(provider, "breaks", {"seconds": 0.1})
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED
    assert "the backend fell over" in result.error


async def test_a_task_the_server_lost_is_execution_failed(provider: McpProvider) -> None:
    result = await call(provider, "vanish", {"seconds": 0.1})
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED  # it may have run
    assert result.cause == "mcp_task_lost"
    assert "may or may not have run" in result.error


async def test_an_aborted_call_cancels_its_remote_task(
    provider: McpProvider, markers: Path
) -> None:
    tag = f"aborted-{provider.connection.link.client.protocol_version}"  # type: ignore[union-attr]
    signal = AbortSignal()
    async with anyio.create_task_group() as group:
        results: list[ToolResult] = []

        async def run() -> None:
            results.append(await call(provider, "stuck", {"tag": tag}, signal))

        group.start_soon(run)
        await wait_until(lambda: _gaps(markers, tag), "the task to be polled")
        signal.abort("the user pressed stop")
    assert isinstance(results[0], Err)
    assert results[0].cause == "aborted"
    await wait_until(lambda: (markers / tag).exists(), "the remote task to be cancelled")


async def test_a_call_that_times_out_cancels_its_remote_task(markers: Path) -> None:
    for protocol, revision in REVISIONS.items():
        tag = f"timeout-{revision}"
        config = stdio_config("slowjobs", TASKS_SERVER, markers, protocol=protocol, timeout_s=5.0)
        async with McpProvider(config) as provider:
            tool = next(t for t in provider.tools if t.name == "mcp__slowjobs__stuck")
            with anyio.fail_after(WAIT_S):
                result = await tool.execute({"tag": tag}, ToolContext(session_id="t"))
            assert tool.timeout_s == 5.0
            assert isinstance(result, Err)
            assert result.code is ErrorCode.EXECUTION_FAILED
            assert result.cause == "timeout"
            marker = markers / tag
            await wait_until(marker.exists, "the remote task to be cancelled")


async def test_the_client_declares_the_extension_on_2026() -> None:
    extension = TasksClientExtension()
    assert extension.identifier == "io.modelcontextprotocol/tasks"
    (claim,) = extension.claims()
    assert claim.result_type == "task"
    assert claim.method == "tools/call"


async def test_a_toolwire_server_answers_a_long_call_with_a_task_the_provider_follows(
    markers: Path, tmp_path: Path
) -> None:
    """Both ends toolwire, on 2026-07-28: the served long-running tool's call becomes a task
    (the extension), and the bridged tool's answer is its final result, not "still running"."""
    config = stdio_config("build", SERVERS / "tasks_server.py", markers)
    config = replace(config, env={**(config.env or {}), "TOOLWIRE_TEST_KV": str(tmp_path / "kv")})
    async with McpProvider(config) as bridged:
        assert bridged.connection.link.client.protocol_version == "2026-07-28"  # type: ignore[union-attr]
        tool = next(t for t in bridged.tools if t.name == "mcp__build__build")
        with anyio.fail_after(WAIT_S):
            result = await tool.execute(
                {"seconds": 0.5, "label": "site"}, ToolContext(session_id="both-ends")
            )
    assert isinstance(result, Ok)
    assert "built site" in result.value
    assert "still running" not in result.value


async def test_a_task_that_needs_input_is_answered_by_the_hosts_handlers(markers: Path) -> None:
    """2026-07-28: the task's elicitation (``inputRequests``) goes to the host's handler, and its
    answer back with ``tasks/update``; the task then ends with the result."""
    asked: list[str] = []

    async def ask_user(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        asked.append(getattr(params, "message", ""))
        return mt.ElicitResult(action="accept", content={"name": "Ada"})

    config = stdio_config("asking", TASKS_SERVER, markers)
    async with McpProvider(config, handlers=ClientHandlers(elicitation=ask_user)) as provider:
        tool = next(t for t in provider.tools if t.name == "mcp__asking__asks")
        with anyio.fail_after(WAIT_S):
            result = await tool.execute({"seconds": 0.1}, ToolContext(session_id="asking"))
    assert isinstance(result, Ok)
    assert result.value == "hello Ada"
    assert asked == ["Your name?"]  # asked once, though the task was polled more often


async def test_a_task_whose_input_cannot_be_given_fails_and_is_cancelled(markers: Path) -> None:
    """No elicitation handler: the request is declined, the call fails, the task is cancelled."""
    config = stdio_config("mute", TASKS_SERVER, markers)
    async with McpProvider(config) as provider:
        tool = next(t for t in provider.tools if t.name == "mcp__mute__asks")
        with anyio.fail_after(WAIT_S):
            result = await tool.execute(
                {"seconds": 0.1, "tag": "declined"}, ToolContext(session_id="mute")
            )
        marker = markers / "declined"
        await wait_until(marker.exists, "the remote task to be cancelled")
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED
