"""Rich results on `toolwire serve`'s server: structured results also as JSON text, audio
content, every annotation hint explicit, the server's title and icons — read by the SDK's
client over real streamable HTTP on both protocol generations."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import mcp_types as mt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from revision_serving import MODES, sdk_client, served

from toolwire import ToolContext, ToolRegistry, define_tool, ok
from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.mcp import ServeOptions
from toolwire.mcp.server._identity import ServerIcon, ServerIdentity
from toolwire.mcp.server.rich_results import MEDIA_KEYS, explicit_hints, structured_text_block
from toolwire.results import ToolResult
from toolwire.tools import ToolAnnotations

pytestmark = pytest.mark.anyio

WAV = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt ").decode()
POINT = {"x": 1, "y": [2, 3], "label": "héllo"}
ICON = ServerIcon(src="data:image/png;base64,iVBORw0KGgo=", mime_type="image/png", sizes=("48x48",))


async def _point(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("a point at 1", structured=POINT)


async def _json_text(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(json.dumps(POINT), structured=POINT)


async def _huge(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("many rows", structured={"rows": ["x" * 100] * 100})


async def _sound(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("a beep", structured={"audio": {"mime_type": "audio/wav", "data": WAV}})


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    schema: dict[str, Any] = {"type": "object"}
    registry.register_all(
        [
            define_tool(name="point", description="d", schema=schema, execute=_point),
            define_tool(name="json_text", description="d", schema=schema, execute=_json_text),
            define_tool(name="huge", description="d", schema=schema, execute=_huge),
            define_tool(
                name="sound",
                description="d",
                schema=schema,
                execute=_sound,
                annotations=ToolAnnotations(title="Sound", read_only=True),
            ),
            define_tool(
                name="wipe",
                description="d",
                schema=schema,
                execute=_point,
                annotations=ToolAnnotations(destructive=False, idempotent=True, open_world=False),
            ),
        ]
    )
    return registry


def _options() -> ServeOptions:
    identity = ServerIdentity(title="ACME tools", website_url="https://acme.example", icons=(ICON,))
    return ServeOptions(identity=identity, result_budget_chars=5_000)


def _texts(result: mt.CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, mt.TextContent)]


@pytest.mark.parametrize("mode", MODES)
async def test_structured_results_also_arrive_as_json_text_once(mode: str) -> None:
    async with served(_registry(), _options()) as url, sdk_client(url, mode) as client:
        point = await client.call_tool("point", {})
        as_json = await client.call_tool("json_text", {})
        huge = await client.call_tool("huge", {})
    assert point.structured_content == POINT
    assert "a point at 1" in _texts(point)[0]  # the presented text comes first
    assert [json.loads(text) for text in _texts(point)[1:]] == [POINT]
    assert len(_texts(as_json)) == 1  # the text already is the JSON: not repeated
    assert json.dumps(POINT) in _texts(as_json)[0]
    assert len(_texts(huge)) == 1  # 10 kB of JSON over the 5,000-char budget
    assert huge.structured_content == {"rows": ["x" * 100] * 100}


@pytest.mark.parametrize("mode", MODES)
async def test_audio_arrives_as_an_audio_block(mode: str) -> None:
    async with served(_registry(), _options()) as url, sdk_client(url, mode) as client:
        result = await client.call_tool("sound", {})
    audio = [block for block in result.content if isinstance(block, mt.AudioContent)]
    assert [(block.mime_type, block.data) for block in audio] == [("audio/wav", WAV)]
    assert len(_texts(result)) == 1  # media is not repeated as base64 JSON text


@pytest.mark.parametrize("mode", MODES)
async def test_every_annotation_hint_is_explicit(mode: str) -> None:
    async with served(_registry(), _options()) as url, sdk_client(url, mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    plain = tools["point"].annotations
    assert plain is not None
    hints = (plain.read_only_hint, plain.destructive_hint, plain.idempotent_hint)
    assert (*hints, plain.open_world_hint) == (False, True, False, True)
    sound = tools["sound"].annotations
    assert sound is not None
    assert sound.title == "Sound"
    assert (sound.read_only_hint, sound.destructive_hint, sound.idempotent_hint) == (
        True,
        False,
        True,
    )
    wipe = tools["wipe"].annotations
    assert wipe is not None
    assert (wipe.destructive_hint, wipe.idempotent_hint, wipe.open_world_hint) == (
        False,
        True,
        False,
    )


@pytest.mark.parametrize("mode", MODES)
async def test_the_server_title_and_icons_reach_the_client(mode: str) -> None:
    async with served(_registry(), _options()) as url, sdk_client(url, mode) as client:
        await client.list_tools()  # on 2026-07-28 every answer carries the serverInfo stamp
        info = client.server_info
    assert info is not None
    assert info.name == "toolwire"
    assert info.title == "ACME tools"
    assert info.website_url == "https://acme.example"
    assert info.icons is not None
    assert [(i.src, i.mime_type, i.sizes) for i in info.icons] == [
        (ICON.src, "image/png", ["48x48"])
    ]


_HINT = st.one_of(st.none(), st.booleans())


@given(_HINT, _HINT, _HINT, _HINT)
def test_explicit_hints_keep_what_is_known_and_fill_the_rest(
    read_only: bool | None,
    destructive: bool | None,
    idempotent: bool | None,
    open_world: bool | None,
) -> None:
    known = ToolAnnotations(
        read_only=read_only, destructive=destructive, idempotent=idempotent, open_world=open_world
    )
    hints = explicit_hints(known)
    values = (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint)
    assert None not in (*values, hints.open_world_hint)
    for given_value, sent in zip(
        (read_only, destructive, idempotent, open_world),
        (*values, hints.open_world_hint),
        strict=True,
    ):
        if given_value is not None:
            assert sent is given_value
    if read_only and destructive is None:
        assert hints.destructive_hint is False


_KEYS = st.text(max_size=5).filter(lambda key: key not in MEDIA_KEYS)


@given(st.dictionaries(_KEYS, st.one_of(st.integers(), st.text(max_size=10))))
def test_the_json_block_round_trips_or_is_left_out(structured: dict[str, Any]) -> None:
    block = structured_text_block("prose", structured, 10_000)
    assert block is not None
    assert json.loads(block["text"]) == structured
    assert structured_text_block(json.dumps(structured), structured, 10_000) is None
    assert structured_text_block("prose", structured, len(block["text"]) - 1) is None


def test_serve_title_and_icons_come_from_the_config(tmp_path: Path) -> None:
    config_file = tmp_path / "toolwire.toml"
    config_file.write_text(
        '[serve]\ntitle = "ACME tools"\ntools_list_ttl_s = 5\n'
        'icons = [{ src = "https://acme.example/i.png", mime_type = "image/png", '
        'sizes = ["48x48"] }]\n'
    )
    config = load_config(config_file, env={})
    assert config.serve_identity.title == "ACME tools"
    assert config.serve_identity.icons == (
        ServerIcon(src="https://acme.example/i.png", mime_type="image/png", sizes=("48x48",)),
    )
    assert config.tools_list_ttl_s == 5


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('icons = [{ src = "file:///etc/x.png" }]', "https: \\(or http:\\) or data:"),
        ('icons = [{ src = "https://a/i.png", colour = "red" }]', "unknown icon key 'colour'"),
        ("title = 3", "serve.title: expected a string"),
        ("tools_list_ttl_s = -1", ">= 0"),
    ],
)
def test_a_bad_serve_identity_is_refused_naming_the_key(
    tmp_path: Path, line: str, problem: str
) -> None:
    config_file = tmp_path / "toolwire.toml"
    config_file.write_text(f"[serve]\n{line}\n")
    with pytest.raises(ConfigurationError, match=problem):
        load_config(config_file, env={})
