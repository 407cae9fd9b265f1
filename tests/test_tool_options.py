"""ToolOptions: ``@tool``'s options as one value build the same tool as the keywords did."""

from __future__ import annotations

import warnings
from dataclasses import fields, replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire import ToolOptions, tool
from toolwire.capabilities import fs_reach, network
from toolwire.tools import CachePolicy, Tool, ToolAnnotations


def _available() -> bool:
    return True


def _approve(args: dict[str, Any], ctx: Any) -> bool:
    return True


_OPTIONS: dict[str, st.SearchStrategy[Any]] = {
    "capabilities": st.sampled_from(
        [(), [network(["example.com"])], [fs_reach(read="from-personality")]]
    ),
    "toolset": st.none() | st.sampled_from(["web", "file"]),
    "max_result_chars": st.none() | st.integers(1, 10_000),
    "is_available": st.sampled_from([None, _available]),
    "always_include": st.booleans(),
    "output_is_untrusted": st.booleans(),
    "timeout_s": st.none() | st.floats(0.5, 600),
    "sequential": st.booleans(),
    "annotations": st.sampled_from([None, ToolAnnotations(read_only=True, title="T")]),
    "cache": st.sampled_from([None, False, True, CachePolicy(ttl_s=5)]),
    "output_schema": st.sampled_from([None, {"type": "object"}]),
    "icons": st.sampled_from([(), ({"src": "https://example.com/i.png"},)]),
    "requires_approval": st.sampled_from([False, True, _approve]),
    "long_running": st.booleans(),
    "side_effects": st.booleans(),
    "defer_loading": st.booleans(),
    "sink": st.booleans(),
    "docstring_style": st.sampled_from(["auto", "google"]),
}


def test_the_strategies_cover_every_option() -> None:
    assert set(_OPTIONS) == {f.name for f in fields(ToolOptions)}


def _fields(made: Tool) -> dict[str, Any]:
    return {
        f.name: getattr(made, f.name)
        for f in fields(Tool)
        if f.name not in ("execute", "validator")
    }


def search(query: str, limit: int = 5) -> str:
    """Search the index.

    Args:
        query: What to look for.
        limit: At most this many hits.
    """
    return query


@given(st.fixed_dictionaries({}, optional=_OPTIONS), st.none() | st.just("find"))
def test_options_and_keywords_build_identical_tools(chosen: dict[str, Any], name: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        by_keywords = tool(name=name, **chosen)(search)
    by_value = tool(name=name, options=ToolOptions(**chosen))(search)
    rest = {k: v for k, v in chosen.items() if k != "capabilities"}
    split = tool(name=name, capabilities=chosen.get("capabilities"), options=ToolOptions(**rest))
    assert _fields(by_value) == _fields(by_keywords) == _fields(split(search))


def test_capabilities_keyword_overrides_the_value() -> None:
    shared = ToolOptions(capabilities=[network(["example.com"])], toolset="web")
    made = tool(capabilities=[fs_reach(read="from-personality")], options=shared)(search)
    assert made.capabilities.declared == ("fs_reach",)
    assert made.toolset == "web"


def test_one_value_serves_several_tools() -> None:
    web = ToolOptions(toolset="web", output_is_untrusted=True, timeout_s=30)
    first = tool(options=web)(search)
    second = tool(name="lookup", options=replace(web, timeout_s=5))(search)
    assert (first.toolset, first.timeout_s) == ("web", 30)
    assert (second.toolset, second.timeout_s, second.output_is_untrusted) == ("web", 5, True)


def test_an_option_keyword_warns_and_names_the_new_form() -> None:
    with pytest.warns(DeprecationWarning, match=r"options=ToolOptions\(toolset=\.\.\.\)") as seen:
        made = tool(toolset="web")(search)
    assert made.toolset == "web"
    assert seen[0].filename == __file__  # points at the decorator's line, not at toolwire


def test_name_description_and_capabilities_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        made = tool(name="s", description="S.", capabilities=[network(["a.com"])])(search)
    assert (made.name, made.description) == ("s", "S.")


def test_an_unknown_keyword_is_a_type_error() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="tool_set"):
            tool(tool_set="web")


def test_options_must_be_a_tool_options() -> None:
    with pytest.raises(TypeError, match="takes a ToolOptions, got dict"):
        tool(options={"toolset": "web"})  # type: ignore[call-overload]
