"""MCP ⇄ toolwire conversions: schemas, results, names."""

from __future__ import annotations

import copy
from typing import Any

import mcp_types as mt
from hypothesis import given
from hypothesis import strategies as st

from toolwire.mcp._conversion import (
    NO_OUTPUT,
    STRUCTURED_HEADER,
    local_tool_name,
    result_from_mcp,
    rewrite_definitions,
)
from toolwire.results import Err, ErrorCode, Ok
from toolwire.tools import TOOL_NAME_PATTERN

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["definitions", "$defs", "$ref", "properties", "items", "a", "type"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


def test_definitions_move_to_defs_and_refs_follow() -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/definitions/Point"}},
        "definitions": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    }
    assert rewrite_definitions(schema) == {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/Point"}},
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    }


def test_a_property_named_definitions_is_not_renamed() -> None:
    schema = {"type": "object", "properties": {"definitions": {"type": "string"}}}
    assert rewrite_definitions(schema) == schema


def test_existing_defs_win_over_same_named_definitions() -> None:
    schema = {"definitions": {"A": {"type": "string"}}, "$defs": {"A": {"type": "integer"}}}
    assert rewrite_definitions(schema) == {"$defs": {"A": {"type": "integer"}}}


@given(JSON)
def test_rewriting_never_mutates_the_input(schema: Any) -> None:
    before = copy.deepcopy(schema)
    rewrite_definitions(schema if isinstance(schema, dict) else {"x": schema})
    assert schema == before


@given(st.dictionaries(st.text(max_size=5), JSON, max_size=4))
def test_no_definitions_keyword_survives_outside_name_maps(schema: dict[str, Any]) -> None:
    def keywords(node: Any, in_names: bool = False) -> list[str]:
        if isinstance(node, dict):
            found = (
                []
                if in_names
                else [k for k, v in node.items() if k == "definitions" and isinstance(v, dict)]
            )
            for key, value in node.items():
                names = not in_names and key in ("properties", "$defs", "definitions")
                found += keywords(value, names)
            return found
        if isinstance(node, list):
            return [k for item in node for k in keywords(item)]
        return []

    assert keywords(rewrite_definitions(schema)) == []


def _result(*blocks: Any, structured: Any = None, is_error: bool = False) -> mt.CallToolResult:
    return mt.CallToolResult(content=list(blocks), structured_content=structured, is_error=is_error)


def test_text_blocks_are_joined_with_newlines() -> None:
    result = _result(mt.TextContent(type="text", text="a"), mt.TextContent(type="text", text="b"))
    assert result_from_mcp(result) == Ok("a\nb")


def test_structured_only_reads_as_indented_json() -> None:
    assert result_from_mcp(_result(structured={"k": 1})) == Ok(
        '{\n  "k": 1\n}', structured={"k": 1}
    )


def test_structured_is_appended_after_the_text() -> None:
    result = result_from_mcp(_result(mt.TextContent(type="text", text="t"), structured={"k": 1}))
    assert result == Ok(f't{STRUCTURED_HEADER}{{\n  "k": 1\n}}', structured={"k": 1})


def test_image_and_audio_are_summarised_by_decoded_size() -> None:
    image = mt.ImageContent(type="image", data="AAAA", mime_type="image/png")
    audio = mt.AudioContent(type="audio", data="AAECAw==", mime_type="audio/wav")
    assert result_from_mcp(_result(image, audio)) == Ok(
        "[Image: image/png, 3 bytes]\n[Audio: audio/wav, 4 bytes]"
    )


def test_empty_success_reads_no_output() -> None:
    assert result_from_mcp(_result()) == Ok(NO_OUTPUT)


def test_an_error_without_text_still_says_so() -> None:
    assert result_from_mcp(_result(is_error=True)) == Err(
        "Tool returned an error", ErrorCode.EXECUTION_FAILED, cause="mcp_error"
    )


@given(st.text(min_size=1, max_size=200))
def test_local_names_are_always_valid_tool_names(remote: str) -> None:
    name = local_tool_name("srv", remote)
    assert TOOL_NAME_PATTERN.match(name)
    assert name.startswith("mcp__srv__")


def test_long_names_that_share_a_prefix_stay_distinct() -> None:
    assert local_tool_name("s", "x" * 80 + "a") != local_tool_name("s", "x" * 80 + "b")
