"""MCP Tasks on a served registry, driven by the SDK's client over stdio and streamable HTTP.

2025-11-25: a task-augmented ``tools/call`` creates a task of ``registry.tasks``;
``tasks/get``, ``tasks/result``, ``tasks/cancel`` and ``tasks/list`` follow it. 2026-07-28: the
``io.modelcontextprotocol/tasks`` extension (the client side is toolwire's
`TasksClientExtension`): a long call of a declaring client is answered with a task that
``tasks/get`` follows to its result; ``tasks/cancel`` and ``tasks/update`` are acknowledged.

SDK 2.3's client checks every ``tools/call`` answer against ``CallToolResult``, so it cannot
receive the ``CreateTaskResult`` a task-augmented call answers through ``send_request``; that
one request goes through the same client's dispatcher (`_create`), the rest through
``send_request``.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_helpers import SERVERS, HttpServer, start_http_server, stop

from toolwire.mcp._task_extension import (
    TASKS_EXTENSION,
    CancelTaskRequest,
    CreateTaskResult,
    GetTaskRequest,
    GetTaskResult,
    TaskIdParams,
    UpdateTaskParams,
    UpdateTaskRequest,
)
from toolwire.mcp.client.tasks import TasksClientExtension

pytestmark = pytest.mark.anyio

TASKS_SERVER = SERVERS / "tasks_server.py"
CALL_TIMEOUT_S = 15.0
RELATED = "io.modelcontextprotocol/related-task"


@pytest.fixture(scope="module")
def kv_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tasks-kv") / "kv.db"


@pytest.fixture(scope="module")
def tasks_http(tmp_path_factory: pytest.TempPathFactory, kv_path: Path) -> Iterator[HttpServer]:
    server = start_http_server(
        TASKS_SERVER, tmp_path_factory.mktemp("tasks-http"), {"TOOLWIRE_TEST_KV": str(kv_path)}
    )
    yield server
    stop(server.process)


def _target(request: pytest.FixtureRequest, kv_path: Path) -> Any:
    if request.param == "stdio":
        return StdioServerParameters(
            command=sys.executable,
            args=[str(TASKS_SERVER), "stdio"],
            env={"TOOLWIRE_TEST_KV": str(kv_path.with_suffix(".stdio.db"))},
            cwd=str(kv_path.parent),
        )
    server: HttpServer = request.getfixturevalue("tasks_http")
    return server.url


@pytest.fixture(scope="module", params=["stdio", "http"])
async def client(request: pytest.FixtureRequest, kv_path: Path) -> AsyncIterator[Client]:
    """An SDK client on the 2025-11-25 protocol (the one whose core has Tasks)."""
    # No deadline scope around the yield: it would stay armed over the module's tests.
    async with Client(
        _target(request, kv_path), mode="legacy", read_timeout_seconds=CALL_TIMEOUT_S
    ) as connected:
        yield connected


async def _create(client: Client, name: str, arguments: dict[str, Any]) -> mt.Task:
    params = {"name": name, "arguments": arguments, "task": {"ttl": 60_000}}
    raw = await client.session._dispatcher.send_raw_request("tools/call", params, {})
    return mt.CreateTaskResult.model_validate(raw).task


async def _get(client: Client, task_id: str) -> mt.GetTaskResult:
    request = mt.GetTaskRequest(params=mt.GetTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, mt.GetTaskResult)


async def _result(client: Client, task_id: str) -> mt.CallToolResult:
    request = mt.GetTaskPayloadRequest(params=mt.GetTaskPayloadRequestParams(task_id=task_id))
    return await client.session.send_request(request, mt.CallToolResult)


async def _cancel(client: Client, task_id: str) -> mt.CancelTaskResult:
    request = mt.CancelTaskRequest(params=mt.CancelTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, mt.CancelTaskResult)


async def _list(client: Client) -> list[mt.Task]:
    return (await client.session.send_request(mt.ListTasksRequest(), mt.ListTasksResult)).tasks


def _text(result: mt.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mt.TextContent))


async def test_the_server_advertises_tasks_and_every_tool_supports_them(client: Client) -> None:
    assert client.protocol_version == "2025-11-25"
    tasks = client.server_capabilities.tasks
    assert tasks is not None
    assert tasks.cancel is not None
    assert tasks.list is not None
    assert tasks.requests is not None
    assert tasks.requests.tools is not None
    listed = await client.list_tools()
    assert {t.name: t.execution.task_support for t in listed.tools if t.execution} == {
        "build": "optional",
        "fail": "optional",
        "echo": "optional",
        "limited": "optional",
    }


async def test_a_task_is_created_polled_and_its_result_read(client: Client) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        task = await _create(client, "build", {"seconds": 0.4, "label": "docs"})
        assert task.status == "working"
        assert task.task_id.startswith("task-")
        assert task.ttl == 86_400_000
        assert (await _get(client, task.task_id)).status == "working"
        result = await _result(client, task.task_id)  # blocks until the task ends
        ended = await _get(client, task.task_id)
    assert not result.is_error
    assert "built docs" in _text(result)
    assert result.meta == {RELATED: {"taskId": task.task_id}}
    assert ended.status == "completed"
    assert task.task_id in [listed.task_id for listed in await _list(client)]


async def test_a_failing_call_is_a_failed_task_with_an_error_result(client: Client) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        task = await _create(client, "fail", {"seconds": 0.1})
        result = await _result(client, task.task_id)
        ended = await _get(client, task.task_id)
    assert result.is_error
    assert "the build broke" in _text(result)
    assert ended.status == "failed"
    assert ended.status_message == "the build broke"


async def test_a_call_refused_at_once_is_a_task_that_already_ended(client: Client) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        task = await _create(client, "no_such_tool", {})
        result = await _result(client, task.task_id)
    assert task.status == "failed"
    assert result.is_error
    assert "Unknown tool: no_such_tool" in _text(result)


async def test_cancel_stops_the_tool_and_an_ended_task_cannot_be_cancelled(client: Client) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        task = await _create(client, "build", {"seconds": 60})
        cancelled = await _cancel(client, task.task_id)
        assert cancelled.status == "cancelled"
        assert (await _get(client, task.task_id)).status == "cancelled"
        with pytest.raises(MCPError) as refused:
            await _cancel(client, task.task_id)
    assert refused.value.error.code == mt.INVALID_PARAMS
    assert "already ended" in refused.value.error.message


async def test_an_unknown_task_id_is_invalid_params(client: Client) -> None:
    for ask in (_get, _result, _cancel):
        with pytest.raises(MCPError) as refused:
            await ask(client, "task-000000000000000000000000")
        assert refused.value.error.code == mt.INVALID_PARAMS


async def test_a_plain_call_to_a_long_running_tool_hands_off_and_tasks_get_follows_it(
    client: Client,
) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        pending = await client.call_tool("build", {"seconds": 0.4, "label": "late"})
        assert isinstance(pending, mt.CallToolResult)
        assert pending.structured_content is not None
        task_id = pending.structured_content["task"]["id"]
        assert "still running" in _text(pending)
        result = await _result(client, task_id)
    assert "built late" in _text(result)
    quick = await client.call_tool("echo", {"text": "now"})
    assert isinstance(quick, mt.CallToolResult)
    assert "now" in _text(quick)


async def test_another_http_session_cannot_see_a_task(tasks_http: HttpServer) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        async with Client(tasks_http.url, mode="legacy") as owner:
            task = await _create(owner, "build", {"seconds": 0.2})
            async with Client(tasks_http.url, mode="legacy") as other:
                with pytest.raises(MCPError) as refused:
                    await _get(other, task.task_id)
                assert task.task_id not in [t.task_id for t in await _list(other)]
            assert "built" in _text(await _result(owner, task.task_id))
    assert refused.value.error.code == mt.INVALID_PARAMS


async def test_a_quota_refuses_over_mcp_saying_which_limit(client: Client) -> None:
    answers = []
    for _ in range(3):
        answer = await client.call_tool("limited", {"seconds": 0})
        assert isinstance(answer, mt.CallToolResult)
        answers.append(answer)
    assert [a.is_error for a in answers] == [False, False, True]
    assert "quota 'limited' allows 2 calls per 3600 s per session" in _text(answers[2])
    task = await _create(client, "limited", {"seconds": 0})  # a task refused at once
    assert task.status == "failed"
    assert "quota 'limited'" in (task.status_message or "")


# -- 2026-07-28: the io.modelcontextprotocol/tasks extension -------------------------------


@pytest.fixture(scope="module", params=["stdio", "http"])
async def modern(request: pytest.FixtureRequest, kv_path: Path) -> AsyncIterator[Client]:
    """An SDK client on 2026-07-28 declaring the Tasks extension (toolwire's own)."""
    async with Client(
        _target(request, kv_path),
        read_timeout_seconds=CALL_TIMEOUT_S,
        extensions=[TasksClientExtension()],
    ) as connected:
        yield connected


@pytest.fixture(scope="module")
async def undeclared(tasks_http: HttpServer) -> AsyncIterator[Client]:
    """An SDK client on 2026-07-28 that does not declare the extension."""
    async with Client(tasks_http.url, read_timeout_seconds=CALL_TIMEOUT_S) as connected:
        yield connected


async def _state(client: Client, task_id: str) -> GetTaskResult:
    request = GetTaskRequest(params=TaskIdParams(taskId=task_id))
    return await client.session.send_request(request, GetTaskResult)


async def _ended(client: Client, task_id: str) -> GetTaskResult:
    while not (state := await _state(client, task_id)).done:
        await anyio.sleep(0.05)
    return state


async def _created(client: Client, name: str, arguments: dict[str, Any]) -> CreateTaskResult:
    answer = await client.session.call_tool(name, arguments, allow_claimed=True)
    assert isinstance(answer, CreateTaskResult), answer
    return answer


async def test_2026_discovery_declares_the_extension(modern: Client) -> None:
    assert modern.protocol_version == "2026-07-28"
    assert TASKS_EXTENSION in (modern.server_capabilities.extensions or {})


async def test_2026_a_long_call_is_answered_with_a_task_that_ends_with_its_result(
    modern: Client,
) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        created = await _created(modern, "build", {"seconds": 0.4, "label": "docs"})
        assert created.result_type == "task"
        assert created.status == "working"
        assert created.ttl_ms == 86_400_000
        assert created.poll_interval_ms == 500
        assert (await _state(modern, created.task_id)).status == "working"
        ended = await _ended(modern, created.task_id)
        followed = await modern.call_tool("build", {"seconds": 0.2, "label": "api"})
    assert ended.status == "completed"
    assert ended.result is not None
    assert "built docs" in mt.CallToolResult.model_validate(ended.result).content[0].text  # type: ignore[union-attr]
    assert "built api" in _text(followed)  # the client extension polled it to the end


async def test_2026_a_tool_failure_is_a_completed_task_whose_result_is_an_error(
    modern: Client,
) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        created = await _created(modern, "fail", {"seconds": 0.1})
        ended = await _ended(modern, created.task_id)
    assert ended.status == "completed"  # failed is for JSON-RPC errors
    assert ended.result is not None
    result = mt.CallToolResult.model_validate(ended.result)
    assert result.is_error
    assert "the build broke" in _text(result)


async def test_2026_a_quick_call_is_answered_directly(modern: Client) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        answer = await modern.session.call_tool("echo", {"text": "now"}, allow_claimed=True)
    assert isinstance(answer, mt.CallToolResult)
    assert "now" in _text(answer)


async def test_2026_cancel_stops_the_tool_and_update_is_acknowledged(modern: Client) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        created = await _created(modern, "build", {"seconds": 60})
        update = UpdateTaskRequest(
            params=UpdateTaskParams(taskId=created.task_id, inputResponses={"unasked": {}})
        )
        await modern.session.send_request(update, mt.EmptyResult)
        cancel = CancelTaskRequest(params=TaskIdParams(taskId=created.task_id))
        await modern.session.send_request(cancel, mt.EmptyResult)
        ended = await _ended(modern, created.task_id)
        await modern.session.send_request(cancel, mt.EmptyResult)  # an ended one: still acked
    assert ended.status == "cancelled"
    assert ended.result is None


async def test_2026_an_unknown_task_is_invalid_params(modern: Client) -> None:
    unknown = TaskIdParams(taskId="task-000000000000000000000000")
    requests: list[Any] = [
        GetTaskRequest(params=unknown),
        CancelTaskRequest(params=unknown),
        UpdateTaskRequest(params=UpdateTaskParams(taskId=unknown.task_id)),
    ]
    for request in requests:
        with pytest.raises(MCPError) as refused:
            await modern.session.send_request(request, mt.EmptyResult)
        assert refused.value.error.code == mt.INVALID_PARAMS


async def test_2026_has_no_tasks_result_or_list(modern: Client) -> None:
    with pytest.raises(MCPError) as no_result:
        await _result(modern, "task-000000000000000000000000")
    with pytest.raises(MCPError) as no_list:
        await _list(modern)
    assert no_result.value.error.code == mt.METHOD_NOT_FOUND
    assert no_list.value.error.code == mt.METHOD_NOT_FOUND


async def test_2026_a_client_without_the_extension_gets_no_task(undeclared: Client) -> None:
    with anyio.fail_after(CALL_TIMEOUT_S):
        pending = await undeclared.call_tool("build", {"seconds": 0.3, "label": "plain"})
        assert pending.structured_content is not None
        task_id = pending.structured_content["task"]["id"]
        with pytest.raises(MCPError) as refused:
            await _state(undeclared, task_id)
    assert "still running" in _text(pending)
    assert refused.value.error.code == mt.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert refused.value.error.data == {
        "requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}
    }
