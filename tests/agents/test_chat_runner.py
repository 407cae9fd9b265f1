"""The shipped runner against a scripted Chat Completions server, through the ``task`` tool.

Every test runs the parent's ``task`` call through a real registry; the sub-agent's loop talks
HTTP to the local server, and the child's tool calls run through the child registry's pipeline.
"""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path

import pytest
from agent_helpers import API_KEY, RegistryFactory, runner_for
from model_server import ModelServer, Reply, completion, tool_call

from toolwire.capabilities.kinds.subagent import ChatCompletionsRunner, RetryPolicy
from toolwire.context import ToolContext
from toolwire.results import Err, ErrorCode, Ok, ToolResult

pytestmark = pytest.mark.anyio


async def task(registry: object, ctx: ToolContext, **args: object) -> ToolResult:
    outcome = await registry.execute("task", args, ctx)  # type: ignore[attr-defined]
    return outcome.result


def ok_of(result: ToolResult) -> Ok:
    assert isinstance(result, Ok), result
    return result


def err_of(result: ToolResult) -> Err:
    assert isinstance(result, Err), result
    return result


async def test_an_answer_without_tool_calls_is_the_result(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("The answer is 42.", usage=(1000, 500)))
    result = ok_of(await task(make_registry(), ctx, description="find it", prompt="What is it?"))
    assert "The answer is 42." in result.value
    assert result.structured is not None
    assert result.structured["stop"] == "final"
    assert result.structured["turns"] == 1
    assert result.structured["tool_calls"] == []
    assert result.structured["usage"] == {
        "prompt_tokens": 1000,
        "completion_tokens": 500,
        "total_tokens": 1500,
    }
    assert result.cost_usd == pytest.approx((1000 * 2.0 + 500 * 8.0) / 1_000_000)
    assert result.structured["cost_usd"] == result.cost_usd


async def test_the_model_is_sent_the_prompt_the_key_and_only_the_allowed_tools(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("done"))
    registry = make_registry(toolsets=("file",))
    ok_of(await task(registry, ctx, description="look", prompt="Read the notes."))
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.body["model"] == "test-model"
    assert request.messages[0]["role"] == "system"
    assert request.messages[1] == {"role": "user", "content": "Read the notes."}
    assert sorted(request.tool_names) == ["patch_file", "read_file", "search_files", "write_file"]
    read_file = next(t for t in request.body["tools"] if t["function"]["name"] == "read_file")
    assert read_file["type"] == "function"
    assert "path" in read_file["function"]["parameters"]["properties"]


async def test_tool_calls_run_through_the_child_pipeline_and_their_results_go_back(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext, work: Path
) -> None:
    (work / "notes.txt").write_text("the launch code is 1234\n")
    server.add(
        completion(None, tool_call("read_file", {"path": "notes.txt"}, "c1")),
        completion("The code is 1234."),
    )
    result = ok_of(await task(make_registry(), ctx, description="read", prompt="Find the code."))
    assert "The code is 1234." in result.value
    _, second = server.requests
    assistant = second.messages[2]
    assert assistant["role"] == "assistant"
    assert assistant["tool_calls"][0]["id"] == "c1"
    assert assistant["tool_calls"][0]["function"]["name"] == "read_file"
    (message,) = second.tool_messages()
    assert message["tool_call_id"] == "c1"
    assert "the launch code is 1234" in message["content"]
    assert '<untrusted source="file:notes.txt" tool="read_file">' in message["content"]  # presented
    assert result.structured is not None
    assert result.structured["turns"] == 2
    assert result.structured["tool_calls"] == [{"name": "read_file", "ok": True}]
    assert result.structured["usage"]["total_tokens"] == 240  # summed over both turns


async def test_an_unknown_tool_and_bad_json_arguments_are_answered_and_the_loop_goes_on(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(
        completion(
            None,
            tool_call("no_such_tool", {}, "c1"),
            tool_call("read_file", '{"path": "notes.txt"', "c2"),  # not valid JSON
        ),
        completion("I could not read it."),
    )
    result = ok_of(await task(make_registry(), ctx, description="try", prompt="Try things."))
    unknown, bad_json = server.requests[1].tool_messages()
    assert unknown["tool_call_id"] == "c1"
    assert "no_such_tool" in unknown["content"]
    assert bad_json["tool_call_id"] == "c2"
    assert "JSON" in bad_json["content"]
    assert result.structured is not None
    assert result.structured["tool_calls"] == [
        {"name": "no_such_tool", "ok": False, "code": "not_available"},
        {"name": "read_file", "ok": False, "code": "input_invalid"},
    ]


async def test_a_model_that_never_stops_calling_tools_stops_at_max_turns(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    for n in range(3):
        server.add(completion(f"still looking {n}", tool_call("whoami", {}, f"c{n}")))
    error = err_of(
        await task(make_registry(max_turns=3), ctx, description="loop", prompt="Go on forever.")
    )
    assert error.code is ErrorCode.EXECUTION_FAILED
    assert error.cause == "max_turns"
    assert "used its 3 turns" in error.error
    assert "still looking 2" in error.error  # the last text it wrote
    assert len(server.requests) == 3


async def test_a_refused_key_is_a_clear_error_that_never_shows_the_key(
    server: ModelServer,
    make_registry: RegistryFactory,
    ctx: ToolContext,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server.add(
        Reply(
            status=401,
            json={"error": {"message": f"Incorrect API key provided: {API_KEY}"}},
        )
    )
    caplog.set_level(logging.DEBUG)
    error = err_of(await task(make_registry(), ctx, description="auth", prompt="Hi."))
    assert error.cause == "failed"
    assert "HTTP 401" in error.error
    assert "refused the API key" in error.error
    assert API_KEY not in error.error
    assert API_KEY not in caplog.text


async def test_rate_limiting_is_retried_after_the_wait_the_endpoint_asks_for(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(
        Reply(status=429, json={"error": {"message": "slow down"}}, headers={"Retry-After": "0"}),
        completion("made it"),
    )
    runner = runner_for(server, retry=RetryPolicy(max_retries=2, backoff_s=0))
    result = ok_of(await task(make_registry(runner=runner), ctx, description="r", prompt="Hi."))
    assert "made it" in result.value
    assert len(server.requests) == 2


async def test_a_retry_after_longer_than_the_limit_fails_at_once_and_says_how_long(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(
        Reply(status=429, json={"error": {"message": "quota"}}, headers={"Retry-After": "120"})
    )
    runner = runner_for(server, retry=RetryPolicy(max_retries=3, max_retry_wait_s=30))
    error = err_of(await task(make_registry(runner=runner), ctx, description="r", prompt="Hi."))
    assert "HTTP 429" in error.error
    assert "retry after 120 s" in error.error
    assert "quota" in error.error
    assert len(server.requests) == 1


async def test_a_server_error_is_retried_then_reported(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    for _ in range(2):
        server.add(Reply(status=503, json={"error": {"message": "overloaded"}}))
    runner = runner_for(server, retry=RetryPolicy(max_retries=1, backoff_s=0))
    error = err_of(await task(make_registry(runner=runner), ctx, description="r", prompt="Hi."))
    assert "HTTP 503" in error.error
    assert "overloaded" in error.error
    assert len(server.requests) == 2


async def test_malformed_json_from_the_endpoint_is_a_clear_error(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(Reply(raw=b'{"choices": [ {"message": '))
    error = err_of(await task(make_registry(), ctx, description="r", prompt="Hi."))
    assert "malformed JSON" in error.error
    assert error.cause == "failed"


async def test_a_response_that_is_not_a_completion_is_a_clear_error(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add({"object": "list", "data": []}, {"choices": [{"message": {"tool_calls": [{}]}}]})
    for _ in range(2):
        error = err_of(await task(make_registry(), ctx, description="r", prompt="Hi."))
        assert "not a chat completion" in error.error


async def test_a_missing_key_secret_fails_before_any_request(
    server: ModelServer,
    make_registry: RegistryFactory,
    ctx: ToolContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TOOLWIRE_TEST_MODEL_KEY")
    error = err_of(await task(make_registry(), ctx, description="r", prompt="Hi."))
    assert "providers/testmodel/apiKey is not configured" in error.error
    assert server.requests == []


async def test_a_runner_without_a_key_sends_no_authorization(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("local"))
    runner = runner_for(server, api_key_ref=None)
    ok_of(await task(make_registry(runner=runner), ctx, description="r", prompt="Hi."))
    assert "authorization" not in server.requests[0].headers


async def test_the_cost_is_unknown_for_a_model_without_a_price(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("cheap?", model="mystery-model"))
    result = ok_of(await task(make_registry(prices={}), ctx, description="r", prompt="Hi."))
    assert result.cost_usd is None
    assert result.structured is not None
    assert result.structured["cost_usd"] is None
    assert result.structured["model"] == "mystery-model"


async def test_the_cost_is_unknown_when_the_endpoint_reports_no_usage(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("no usage", usage=None))
    result = ok_of(await task(make_registry(), ctx, description="r", prompt="Hi."))
    assert result.cost_usd is None


async def test_options_reach_the_request_body(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    server.add(completion("ok"))
    runner = runner_for(server, temperature=0.2, max_tokens=300, extra_body={"seed": 7})
    ok_of(await task(make_registry(runner=runner), ctx, description="r", prompt="Hi."))
    body = server.requests[0].body
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.2, 300, 7)
    assert json.dumps(body)  # what was sent is plain JSON


async def test_an_endpoint_nobody_listens_on_is_a_clear_error(
    make_registry: RegistryFactory, ctx: ToolContext
) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago, now closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    runner = ChatCompletionsRunner(
        base_url=f"http://127.0.0.1:{port}/v1",
        model="test-model",
        retry=RetryPolicy(max_retries=1, backoff_s=0),
    )
    error = err_of(await task(make_registry(runner=runner), ctx, description="r", prompt="Hi."))
    assert "could not reach the endpoint: ConnectError" in error.error


@pytest.mark.parametrize("status", [400, 404, 413, 422, 500, 502, 504])
async def test_every_error_status_is_a_result_naming_it(
    server: ModelServer, make_registry: RegistryFactory, ctx: ToolContext, status: int
) -> None:
    server.add(Reply(status=status, raw=b"<html>upstream trouble</html>"))
    error = err_of(await task(make_registry(), ctx, description="r", prompt="Hi."))
    assert f"HTTP {status}" in error.error
    assert "upstream trouble" in error.error
