"""`McpProvider`'s gaps found against real servers, each against the SDK's own server
(`servers/gaps_server.py`, a subprocess over stdio or streamable HTTP), on both protocol
generations where the gap depends on it."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_helpers import SERVERS, WAIT_S, start_http_server, stdio_config, stop

from toolwire import Err, Ok, ToolContext
from toolwire.calls import CallOutcome
from toolwire.context import AbortSignal
from toolwire.mcp import McpProvider, McpServerConfig
from toolwire.mcp._conversion import STRUCTURED_HEADER
from toolwire.presenting import present
from toolwire.results import ErrorCode

pytestmark = pytest.mark.anyio

GAPS_SERVER = SERVERS / "gaps_server.py"
PROTOCOLS = ["auto", "legacy"]


def ctx() -> ToolContext:
    return ToolContext(session_id="client-gaps")


def tool(provider: McpProvider, bare: str):  # type: ignore[no-untyped-def]
    return next(t for t in provider.tools if t.name == f"mcp__{provider.config.name}__{bare}")


async def call(provider: McpProvider, bare: str, args: dict[str, object]):  # type: ignore[no-untyped-def]
    with anyio.fail_after(WAIT_S):
        return await tool(provider, bare).execute(args, ctx())


@pytest.fixture(scope="module")
async def gaps(markers: Path) -> AsyncIterator[McpProvider]:
    async with McpProvider(stdio_config("gaps", GAPS_SERVER, markers)) as provider:
        yield provider


# -- a call in flight when the server dies ------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_call_in_flight_when_the_server_dies_is_execution_failed(
    markers: Path, protocol: str
) -> None:
    config = stdio_config("dying", GAPS_SERVER, markers, protocol=protocol)
    async with McpProvider(config) as provider:
        result = await call(provider, "die", {})
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED  # it may have run: not not_available
    assert result.cause == "mcp_connection_lost"
    assert "may or may not have run" in result.error


async def test_a_call_in_flight_when_an_http_server_dies_is_execution_failed(
    tmp_path: Path,
) -> None:
    server = start_http_server(GAPS_SERVER, tmp_path, name="dying-http")
    try:
        config = McpServerConfig(name="dyinghttp", url=server.url, connect_timeout_s=WAIT_S)
        async with McpProvider(config) as provider:
            result = await call(provider, "die", {})
    finally:
        stop(server.process)
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED


# -- tools that require task augmentation -------------------------------------------------


async def test_a_tool_that_requires_a_task_is_not_offered_by_a_server_without_tasks(
    markers: Path,
) -> None:
    # ``execution.taskSupport`` is a handshake-era field: 2026-07-28 listings do not carry it.
    # The SDK's MCPServer declares no ``capabilities.tasks``, so the tool could never be called;
    # a server that takes task calls has it offered and called as a task (test_task_calls.py).
    config = stdio_config("tasky", GAPS_SERVER, markers, protocol="legacy")
    async with McpProvider(config) as provider:
        names = {t.name for t in provider.tools}
        remote = {spec.name: spec for spec in provider.connection.remote_tools}
    assert remote["needs_task"].execution is not None
    assert remote["needs_task"].execution.task_support == "required"
    assert "mcp__tasky__needs_task" not in names
    assert {"mcp__tasky__busy", "mcp__tasky__measure", "mcp__tasky__note"} <= names


# -- the keep-alive -----------------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_keepalive_spares_a_server_busy_with_a_long_call(
    markers: Path, protocol: str
) -> None:
    # The server blocks its event loop for 1.5 s: it answers no keep-alive meanwhile, and
    # the keep-alive window is 0.2 s. The call's own timeout (60 s) is what bounds it.
    config = stdio_config(f"busy-{protocol}", GAPS_SERVER, markers, protocol=protocol,
                          ping_interval_s=0.2)  # fmt: skip
    async with McpProvider(config) as provider:
        link = provider.connection.link
        result = await call(provider, "busy", {"seconds": 1.5})
        assert result == Ok("done after 1.5 s", structured={"result": "done after 1.5 s"})
        assert provider.connection.link is link  # never declared dead, never reconnected


async def test_the_keepalive_spares_a_busy_http_server(tmp_path: Path) -> None:
    server = start_http_server(GAPS_SERVER, tmp_path, name="busy-http")
    try:
        config = McpServerConfig(
            name="busyhttp", url=server.url, connect_timeout_s=WAIT_S, ping_interval_s=0.2
        )
        async with McpProvider(config) as provider:
            link = provider.connection.link
            result = await call(provider, "busy", {"seconds": 1.5})
            assert isinstance(result, Ok)
            assert result.value == "done after 1.5 s"
            assert provider.connection.link is link
    finally:
        stop(server.process)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_keepalive_still_notices_a_silent_server(markers: Path, protocol: str) -> None:
    # Once no call is in flight, a server that does not answer is declared dead.
    config = stdio_config(f"silent-{protocol}", GAPS_SERVER, markers, protocol=protocol,
                          ping_interval_s=0.2)  # fmt: skip
    async with McpProvider(config) as provider:
        link = provider.connection.link
        assert link is not None
        signal = AbortSignal()
        async with anyio.create_task_group() as group:
            group.start_soon(_abort_later, signal)
            result = await tool(provider, "busy").execute(
                {"seconds": 3.0}, ToolContext(session_id="client-gaps", abort_signal=signal)
            )
        assert isinstance(result, Err)
        assert result.cause == "aborted"
        assert link.alive  # the abort did not drop it; the next keep-alive will
        with anyio.fail_after(WAIT_S):
            await link.lost.wait()


async def _abort_later(signal: AbortSignal) -> None:
    await anyio.sleep(0.3)
    signal.abort("enough")


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_keepalive_raises_no_deprecation_warning(markers: Path, protocol: str) -> None:
    config = stdio_config(f"quiet-{protocol}", GAPS_SERVER, markers, protocol=protocol,
                          ping_interval_s=0.05)  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with McpProvider(config) as provider:
            link = provider.connection.link
            await anyio.sleep(0.5)  # about ten keep-alives
            assert provider.connection.link is link
    assert not [w for w in caught if issubclass(w.category, MCPDeprecationWarning)]


# -- bridged tools keep their definition --------------------------------------------------


async def test_a_bridged_tool_keeps_its_output_schema_title_and_hints(gaps: McpProvider) -> None:
    measure = tool(gaps, "measure")
    spec = next(s for s in gaps.connection.remote_tools if s.name == "measure")
    assert spec.output_schema is not None
    assert measure.output_schema == spec.output_schema
    assert measure.annotations is not None
    assert measure.annotations.title == "Measure it"
    assert measure.icons == tuple(icon.model_dump(by_alias=True, exclude_none=True)
                                  for icon in spec.icons or ())  # fmt: skip
    assert measure.icons
    assert measure.icons[0]["src"] == "https://example.com/ruler.png"


async def test_structured_content_that_repeats_the_text_is_not_appended_twice(
    gaps: McpProvider,
) -> None:
    result = await call(gaps, "measure", {"value": 2.5})
    assert isinstance(result, Ok)
    assert result.structured == {"value": 2.5, "unit": "m"}
    assert STRUCTURED_HEADER not in result.value
    assert result.value.count('"unit"') == 1


async def test_structured_content_that_breaks_the_output_schema_is_refused(
    gaps: McpProvider,
) -> None:
    result = await call(gaps, "misshapen", {})
    assert isinstance(result, Err)
    assert result.code is ErrorCode.EXECUTION_FAILED
    assert result.cause == "mcp_output_invalid"
    assert "count" in result.error


async def test_the_untrusted_label_names_the_server(gaps: McpProvider) -> None:
    note = tool(gaps, "note")
    result = await call(gaps, "note", {"text": "hi"})
    outcome = CallOutcome(tool_call_id="c1", name=note.name, result=result, duration_ms=1.0)
    text = present(outcome, note, args={"text": "hi"})
    assert '<untrusted source="mcp:gaps" tool="mcp__gaps__note">' in text
    assert 'source="unknown"' not in text
