"""`McpProvider` against real MCP servers: a toolwire server and an SDK `MCPServer`."""

from __future__ import annotations

import socket
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp_helpers import (
    REGISTRY_SERVER,
    SDK_SERVER,
    WAIT_S,
    HttpServer,
    never_starts,
    start_http_server,
    stdio_config,
    stop,
    wait_until,
)

from toolwire import Err, Ok, ToolContext, ToolRegistry
from toolwire.context import AbortSignal, ProgressEvent
from toolwire.errors import ConfigurationError, ProviderError
from toolwire.mcp import McpProvider, McpServerConfig, bridge_into
from toolwire.mcp._conversion import STRUCTURED_HEADER
from toolwire.results import ErrorCode

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def sdk(markers: Path) -> AsyncIterator[McpProvider]:
    """A provider connected to the SDK test server over stdio."""
    async with McpProvider(stdio_config("sdk", SDK_SERVER, markers)) as provider:
        yield provider


@pytest.fixture(scope="module")
async def limited(markers: Path) -> AsyncIterator[McpProvider]:
    """The SDK test server with a 1,234-char result cap and a 0.5 s call timeout."""
    config = stdio_config("limited", SDK_SERVER, markers, result_limit_chars=1234, timeout_s=0.5)
    async with McpProvider(config) as provider:
        yield provider


@pytest.fixture(scope="module")
async def ours(markers: Path) -> AsyncIterator[McpProvider]:
    """A provider connected to the toolwire test registry over stdio."""
    async with McpProvider(stdio_config("tw", REGISTRY_SERVER, markers)) as provider:
        yield provider


@pytest.fixture(scope="module")
async def ours_http(registry_http: HttpServer) -> AsyncIterator[McpProvider]:
    """A provider connected to the toolwire test registry over streamable HTTP."""
    config = McpServerConfig(name="twhttp", url=registry_http.url, connect_timeout_s=WAIT_S)
    async with McpProvider(config) as provider:
        yield provider


def ctx(**changes: object) -> ToolContext:
    return ToolContext(session_id="client-tests", **changes)  # type: ignore[arg-type]


def tool(provider: McpProvider, bare: str):  # type: ignore[no-untyped-def]
    return next(t for t in provider.tools if t.name == f"mcp__{provider.config.name}__{bare}")


async def call(provider: McpProvider, bare: str, args: dict[str, object], **changes: object):  # type: ignore[no-untyped-def]
    with anyio.fail_after(WAIT_S):
        return await tool(provider, bare).execute(args, ctx(**changes))


# -- what the tools look like -------------------------------------------------------------


async def test_remote_tools_are_named_mcp_server_tool(sdk: McpProvider) -> None:
    names = {t.name for t in sdk.tools}
    assert {"mcp__sdk__add", "mcp__sdk__picture", "mcp__sdk__boom"} <= names


async def test_remote_tools_are_untrusted_capped_and_in_the_mcp_toolset(sdk: McpProvider) -> None:
    add = tool(sdk, "add")
    assert add.output_is_untrusted is True
    assert add.max_result_chars == 50_000
    assert add.toolset == "mcp"
    assert add.annotations is not None
    assert add.annotations.read_only is True
    assert add.annotations.open_world is False


async def test_a_per_server_result_cap_applies_to_every_tool(limited: McpProvider) -> None:
    assert {t.max_result_chars for t in limited.tools} == {1234}


async def test_schemas_keep_their_refs_resolvable(sdk: McpProvider) -> None:
    describe = tool(sdk, "describe")
    assert "definitions" not in describe.schema
    assert describe.validator.validate({"point": {"x": 3, "y": 4}}) == {"point": {"x": 3, "y": 4}}


# -- results ------------------------------------------------------------------------------


async def test_text_result_comes_back_ok(ours: McpProvider) -> None:
    result = await call(ours, "echo", {"text": "hi there"})
    assert isinstance(result, Ok)
    assert "hi there" in result.value


async def test_a_plain_value_wrapped_as_structured_content_is_not_repeated(
    sdk: McpProvider,
) -> None:
    result = await call(sdk, "add", {"a": 2, "b": 3})
    assert isinstance(result, Ok)
    assert result.value == "5"  # the SDK's {"result": 5} only repeats it
    assert result.structured == {"result": 5}


async def test_structured_content_already_in_the_text_is_not_repeated(sdk: McpProvider) -> None:
    result = await call(sdk, "describe", {"point": {"x": 3, "y": 4}})
    assert isinstance(result, Ok)
    assert STRUCTURED_HEADER not in result.value
    assert result.structured == {"x": 3, "y": 4, "norm2": 25}


async def test_images_are_summarised_with_mime_and_size(sdk: McpProvider) -> None:
    result = await call(sdk, "picture", {})
    assert result == Ok("[Image: image/png, 21 bytes]")


async def test_empty_result_reads_no_output(sdk: McpProvider) -> None:
    assert await call(sdk, "nothing", {}) == Ok("(no output)")


async def test_is_error_becomes_execution_failed_with_the_servers_text(sdk: McpProvider) -> None:
    result = await call(sdk, "boom", {})
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED
    assert "the reactor is offline" in result.error


async def test_err_from_a_toolwire_server_keeps_its_message(ours: McpProvider) -> None:
    result = await call(ours, "fail", {})
    assert isinstance(result, Err)
    assert result.error == "the widget is broken"


async def test_calls_work_over_streamable_http(ours_http: McpProvider) -> None:
    result = await call(ours_http, "echo", {"text": "over http"})
    assert isinstance(result, Ok)
    assert "over http" in result.value


async def test_server_progress_reaches_the_context_emitter(ours: McpProvider) -> None:
    events: list[ProgressEvent] = []
    result = await call(ours, "progress", {}, emit=events.append)
    assert isinstance(result, Ok)
    await wait_until(lambda: len(events) >= 3, "progress")
    assert [e.message for e in events[:3]] == ["step 1", "step 2", "step 3"]
    assert events[0].audience == "user"


# -- cancellation and timeouts ------------------------------------------------------------


async def test_the_abort_signal_is_forwarded_as_mcp_cancellation(
    sdk: McpProvider, markers: Path
) -> None:
    tag = f"abort-{uuid.uuid4().hex}"
    signal = AbortSignal()
    async with anyio.create_task_group() as group:
        group.start_soon(_abort_later, signal)
        result = await call(sdk, "slow", {"seconds": 30, "tag": tag}, abort_signal=signal)
    assert result == Err("aborted: user pressed stop", ErrorCode.EXECUTION_FAILED, cause="aborted")
    await wait_until((markers / tag).exists, "the server saw the cancellation")


async def _abort_later(signal: AbortSignal) -> None:
    await anyio.sleep(0.3)
    signal.abort("user pressed stop")


async def test_the_call_timeout_applies(limited: McpProvider, markers: Path) -> None:
    tag = f"timeout-{uuid.uuid4().hex}"
    result = await call(limited, "slow", {"seconds": 30, "tag": tag})
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED
    assert "0.5 s" in result.error
    await wait_until((markers / tag).exists, "the server saw the cancellation")


# -- connection lifecycle -----------------------------------------------------------------


async def test_reconnects_after_the_server_process_dies(markers: Path) -> None:
    async with McpProvider(stdio_config("phoenix", SDK_SERVER, markers)) as provider:
        crashed = await call(provider, "crash", {})
        assert isinstance(crashed, Err)
        await wait_until(lambda: provider.connected, "reconnected")
        assert await call(provider, "add", {"a": 1, "b": 1}) == Ok("2", structured={"result": 2})


async def test_reconnects_over_http_after_the_server_restarts(
    markers: Path, tmp_path: Path
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"TOOLWIRE_TEST_MARKERS": str(markers), "TEST_PORT": str(port)}
    first = start_http_server(REGISTRY_SERVER, tmp_path, env, name="first")
    config = McpServerConfig(
        name="phoenixhttp", url=first.url, connect_timeout_s=WAIT_S, ping_interval_s=0.2
    )
    second = None
    try:
        async with McpProvider(config) as provider:
            assert isinstance(await call(provider, "echo", {"text": "before"}), Ok)
            stop(first.process)
            await wait_until(lambda: not provider.connected, "the lost connection noticed")
            second = start_http_server(REGISTRY_SERVER, tmp_path, env, name="second")
            await wait_until(lambda: provider.connected, "reconnected")
            assert isinstance(await call(provider, "echo", {"text": "after"}), Ok)
    finally:
        stop(first.process)
        if second is not None:
            stop(second.process)


async def test_a_disconnected_server_answers_not_available(markers: Path) -> None:
    provider = McpProvider(stdio_config("gone", SDK_SERVER, markers))
    async with provider:
        add = tool(provider, "add")
    assert add.is_available is not None
    assert add.is_available() is False
    result = await add.execute({"a": 1, "b": 2}, ctx())
    assert result == Err(
        "MCP server 'gone' is not connected", ErrorCode.NOT_AVAILABLE, reason="mcp_disconnected"
    )


async def test_a_server_that_never_starts_fails_the_connect_with_the_reason() -> None:
    with pytest.raises(ProviderError, match="did not connect within 2 s: MCPError: "):
        async with McpProvider(never_starts()):
            pass


async def test_running_starts_without_waiting_and_the_tools_appear_once_connected(
    markers: Path,
) -> None:
    async with McpProvider(stdio_config("eager", SDK_SERVER, markers)).running() as provider:
        assert not provider.connected
        assert provider.tools == []
        await provider.wait_connected(WAIT_S)
        assert isinstance(await call(provider, "add", {"a": 2, "b": 2}), Ok)
    assert not provider.connected


async def test_an_error_in_the_block_is_not_wrapped_in_an_exception_group() -> None:
    with pytest.raises(LookupError, match="as itself"):
        async with McpProvider(never_starts("plain")).running():
            raise LookupError("as itself")


async def test_a_provider_runs_once() -> None:
    provider = McpProvider(never_starts("single"))
    async with provider.running():
        pass
    with pytest.raises(ProviderError, match="already ran; create a new one"):
        async with provider:
            pass


async def test_tools_list_changed_refreshes_the_tools(limited: McpProvider) -> None:
    registry = ToolRegistry()
    stop = bridge_into(registry, limited)
    assert "mcp__limited__extra" not in registry
    assert isinstance(await call(limited, "grow", {}), Ok)
    await wait_until(lambda: "mcp__limited__extra" in registry, "the new tool")
    outcome = await registry.execute("mcp__limited__extra", {}, ctx())
    assert outcome.result == Ok("extra!")
    stop()
    assert not any(name.startswith("mcp__limited__") for name in registry.names)


async def test_bridged_tools_run_through_the_registry_pipeline(ours: McpProvider) -> None:
    registry = ToolRegistry()
    bridge_into(registry, ours)
    outcome = await registry.execute("mcp__tw__echo", {"text": 7}, ctx())
    assert isinstance(outcome.result, Err)
    assert outcome.result.code is ErrorCode.INPUT_INVALID


# -- configuration ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a__b", "_lead", "trail_", "", "has space", "dot.ted"])
def test_server_names_that_would_break_the_name_split_are_refused(name: str) -> None:
    with pytest.raises(ConfigurationError, match="MCP server name"):
        McpServerConfig(name=name, command="true")


def test_a_server_needs_exactly_one_of_command_and_url() -> None:
    with pytest.raises(ConfigurationError, match="exactly one"):
        McpServerConfig(name="both", command="x", url="http://127.0.0.1:1/mcp")
    with pytest.raises(ConfigurationError, match="exactly one"):
        McpServerConfig(name="neither")
