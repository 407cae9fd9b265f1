"""The conformance fixture and what it rests on, without Node: `McpProvider`'s client handlers
against the fixture served by `serve_registry` (elicitation with defaults, sampling, roots not
needed, logs), the fixture's resources and completion through the SDK client, and the pure parts
(media blocks, schema defaults, log levels) with hypothesis.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import mcp_types as mt
import pytest
from conformance_suite import Served, serve_fixture, stop_fixture
from fixture import fixture_tools
from hypothesis import given
from hypothesis import strategies as st
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from toolwire import ToolContext, ToolRegistry
from toolwire.mcp._settings import McpServerConfig
from toolwire.mcp.client._bridge import bridge_into
from toolwire.mcp.client._provider import McpProvider
from toolwire.mcp.client.handlers import ClientHandlers, apply_schema_defaults
from toolwire.mcp.server.media import media_blocks
from toolwire.mcp.server.peer import LOG_LEVELS, LogLevels, current_peer
from toolwire.mcp.server.result_resources import RESOURCE_NOT_FOUND
from toolwire.results import ErrorCode

pytestmark = pytest.mark.anyio

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The fixture served (``fixture_server.py``) in a temporary directory."""
    served = serve_fixture(tmp_path_factory.mktemp("fixture-units"))
    yield served
    stop_fixture(served)


class Host:
    """Client handlers that record what the server asked."""

    def __init__(self) -> None:
        self.forms: list[mt.ElicitRequestParams] = []
        self.prompts: list[mt.CreateMessageRequestParams] = []
        self.logs: list[mt.LoggingMessageNotificationParams] = []

    async def elicit(self, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        self.forms.append(params)
        return mt.ElicitResult(action="accept", content={"username": "ada"})

    async def sample(self, params: mt.CreateMessageRequestParams) -> mt.CreateMessageResult:
        self.prompts.append(params)
        text = mt.TextContent(type="text", text="forty-two")
        return mt.CreateMessageResult(role="assistant", content=text, model="m")

    async def log(self, params: mt.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    def handlers(self) -> ClientHandlers:
        return ClientHandlers(sampling=self.sample, elicitation=self.elicit, logging=self.log)


async def _bridged(
    served: Served, handlers: ClientHandlers | None, protocol: str = "auto"
) -> AsyncIterator[ToolRegistry]:
    mode: Literal["auto", "legacy"] = "legacy" if protocol == "legacy" else "auto"
    config = McpServerConfig(name="fx", url=served.url, protocol=mode, connect_timeout_s=20.0)
    registry = ToolRegistry()
    async with McpProvider(config, handlers=handlers) as provider:
        bridge_into(registry, provider)
        yield registry


async def _call(registry: ToolRegistry, name: str, args: dict[str, Any]) -> Any:
    ctx = ToolContext(session_id="fixture-test")
    return (await registry.execute(f"mcp__fx__{name}", args, ctx, call_id=name)).result


@pytest.mark.parametrize("protocol", ["auto", "legacy"])  # 2026-07-28 (input_required), 2025
async def test_elicitation_reaches_the_host_and_defaults_fill_the_answer(
    served: Served, protocol: str
) -> None:
    host = Host()
    async for registry in _bridged(served, host.handlers(), protocol):
        plain = await _call(registry, "test_elicitation", {"message": "Who are you?"})
        defaults = await _call(registry, "test_elicitation_sep1034_defaults", {})
    assert plain.ok
    assert '"username": "ada"' in plain.value
    assert host.forms[0].message == "Who are you?"
    # the host answered only "username": every other field came back with its default
    assert defaults.ok
    for shown in ('"age": 30', '"name": "John Doe"', '"score": 95.5', '"verified": true'):
        assert shown in defaults.value
    assert '"username": "ada"' in defaults.value


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_sampling_goes_to_the_host_model(served: Served, protocol: str) -> None:
    host = Host()
    async for registry in _bridged(served, host.handlers(), protocol):
        result = await _call(registry, "test_sampling", {"prompt": "six times seven?"})
    assert result.ok
    assert "LLM response: forty-two" in result.value
    sent = host.prompts[0].messages[0].content
    assert getattr(sent, "text", None) == "six times seven?"
    assert host.prompts[0].max_tokens == 100


async def test_without_handlers_the_capabilities_are_not_declared(served: Served) -> None:
    async for registry in _bridged(served, None, "legacy"):
        asked = await _call(registry, "test_elicitation", {"message": "?"})
        sampled = await _call(registry, "test_sampling", {"prompt": "?"})
    for result in (asked, sampled):
        assert not result.ok
        assert "declared no" in result.error


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_tool_logs_reach_the_host(served: Served, protocol: str) -> None:
    host = Host()
    async for registry in _bridged(served, host.handlers(), protocol):
        result = await _call(registry, "test_tool_with_logging", {})
    assert result.ok
    assert [log.data for log in host.logs] == [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
async def test_logging_set_level_filters_a_session(served: Served) -> None:
    host = Host()
    async with Client(served.url, mode="legacy", logging_callback=host.log) as client:
        await client.call_tool("test_tool_with_logging", {})
        assert len(host.logs) == 3  # every level until the session chooses
        await client.set_logging_level("warning")
        host.logs.clear()
        await client.call_tool("test_tool_with_logging", {})
    assert host.logs == []  # info is below the session's level


async def test_rich_content_blocks(served: Served) -> None:
    async with Client(served.url, mode="legacy") as client:
        mixed = await client.call_tool("test_multiple_content_types", {})
        audio = await client.call_tool("test_audio_content", {})
        error = await client.call_tool("test_error_handling", {})
    kinds = [block.type for block in mixed.content]
    assert kinds[0] == "text"
    assert "image" in kinds
    assert "resource" in kinds
    assert [block.type for block in audio.content] == ["text", "audio"]
    assert getattr(audio.content[1], "mime_type", None) == "audio/wav"
    assert error.is_error
    assert "intentionally" in getattr(error.content[0], "text", "")


async def test_resources_templates_and_completion(served: Served) -> None:
    async with Client(served.url, mode="legacy") as client:
        listed = await client.list_resources()
        templated = await client.read_resource("test://template/77/data")
        ref = mt.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data")
        completed = await client.complete(ref, {"name": "id", "value": "4"})
        with pytest.raises(MCPError) as missing:
            await client.read_resource("test://nothing-here")
    assert {str(r.uri) for r in listed.resources} == {"test://static-text", "test://static-binary"}
    assert '"id":"77"' in getattr(templated.contents[0], "text", "")
    assert completed.completion.values == ["42"]
    assert missing.value.code == RESOURCE_NOT_FOUND


async def test_fixture_tools_outside_mcp_answer_not_available() -> None:
    registry = ToolRegistry()
    registry.register_all(fixture_tools())
    assert current_peer() is None
    ctx = ToolContext(session_id="library")
    outcome = await registry.execute("test_sampling", {"prompt": "hi"}, ctx, call_id="1")
    assert outcome.result.code == ErrorCode.NOT_AVAILABLE
    logged = await registry.execute("test_tool_with_logging", {}, ctx, call_id="2")
    assert logged.result.ok  # logging without a client is a no-op, not an error


@given(structured=st.dictionaries(st.sampled_from(["audio", "resource", "resources", "x"]), JSON))
def test_media_blocks_never_raise_and_are_well_formed(structured: dict[str, Any]) -> None:
    for block in media_blocks(structured):
        if block["type"] == "audio":
            assert block["mimeType"].startswith("audio/")
            assert isinstance(block["data"], str)
        else:
            assert block["type"] == "resource"
            contents = block["resource"]
            assert isinstance(contents["uri"], str)
            assert contents["uri"]
            assert ("text" in contents) != ("blob" in contents)


def test_media_blocks_order_and_shapes() -> None:
    blocks = media_blocks(
        {
            "audio": {"mime_type": "audio/wav", "data": "UklGRg=="},
            "resources": [{"uri": "a://2", "blob": "AA=="}, {"uri": "", "text": "dropped"}],
            "resource": {"uri": "a://1", "mime_type": "text/plain", "text": "one"},
        }
    )
    assert blocks == [
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource", "resource": {"uri": "a://1", "mimeType": "text/plain", "text": "one"}},
        {"type": "resource", "resource": {"uri": "a://2", "blob": "AA=="}},
    ]
    assert media_blocks({"audio": {"mime_type": "image/png", "data": "x"}}) == []


@given(
    defaults=st.dictionaries(st.text(max_size=5), JSON, max_size=5),
    content=st.dictionaries(st.text(max_size=5), JSON, max_size=5),
)
def test_schema_defaults_fill_only_what_is_missing(
    defaults: dict[str, Any], content: dict[str, Any]
) -> None:
    schema = {"type": "object", "properties": {k: {"default": v} for k, v in defaults.items()}}
    filled = apply_schema_defaults(schema, content)
    assert {k: filled[k] for k in content} == content  # the user's answers win
    assert set(filled) == set(content) | set(defaults)
    for key in set(defaults) - set(content):
        assert filled[key] == defaults[key]


@given(chosen=st.sampled_from(LOG_LEVELS), level=st.sampled_from(LOG_LEVELS))
def test_log_levels(chosen: mt.LoggingLevel, level: mt.LoggingLevel) -> None:
    levels = LogLevels()
    assert levels.allows("s", level)  # every level until the session chooses
    levels.set("s", chosen)
    assert levels.allows("s", level) == (LOG_LEVELS.index(level) >= LOG_LEVELS.index(chosen))
    assert levels.allows("other", level)
