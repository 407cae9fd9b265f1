"""static_tools and skill_scoped_tools: purity, order, copies, ids, fail-closed matching."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from provider_helpers import make_tool, make_tools, names

from toolwire.errors import ConfigurationError, RegistrationError, ToolDefinitionError
from toolwire.providers import (
    SKILL_SCOPED_ID_PREFIX,
    ProviderContext,
    skill_scoped_tools,
    static_tools,
)

CTX = ProviderContext()
_names = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True), unique=True, max_size=12)


@given(_names)
def test_static_keeps_the_input_order(tool_names: list[str]) -> None:
    assert names(static_tools(make_tools(*tool_names)).list(CTX)) == tool_names


def test_static_returns_a_new_equal_list_each_call() -> None:
    provider = static_tools(make_tools("a", "b"))
    first, second = provider.list(CTX), provider.list(CTX)
    assert first == second
    assert first is not second


def test_static_copies_its_input() -> None:
    source = make_tools("a")
    provider = static_tools(source)
    source.append(make_tool("late"))
    assert names(provider.list(CTX)) == ["a"]


def test_mutating_a_returned_list_does_not_reach_the_provider() -> None:
    provider = static_tools(make_tools("a"))
    provider.list(CTX).clear()
    assert names(provider.list(CTX)) == ["a"]


def test_static_empty_list_is_valid() -> None:
    assert static_tools([]).list(CTX) == []


def test_static_id_defaults_to_static_and_can_be_set() -> None:
    assert static_tools([]).id == "static"
    assert static_tools([], id="core").id == "core"


def test_static_refuses_duplicate_names() -> None:
    with pytest.raises(RegistrationError, match="'a'"):
        static_tools([make_tool("a"), make_tool("a", reply="other")])


def test_static_refuses_non_tools() -> None:
    with pytest.raises(ToolDefinitionError, match="index 1"):
        static_tools([make_tool("a"), "b"])  # type: ignore[list-item]


def test_skill_scoped_is_empty_without_an_active_skill() -> None:
    assert skill_scoped_tools("pdf", make_tools("a")).list(CTX) == []


def test_skill_scoped_shows_tools_while_its_skill_is_active() -> None:
    provider = skill_scoped_tools("pdf", make_tools("a", "b"))
    assert names(provider.list(ProviderContext(active_skill_id="pdf"))) == ["a", "b"]


@pytest.mark.parametrize("active", ["PDF", "pdf ", " pdf", "pdf2", "other", ""])
def test_skill_scoped_matches_the_id_exactly(active: str) -> None:
    provider = skill_scoped_tools("pdf", make_tools("a"))
    assert provider.list(ProviderContext(active_skill_id=active)) == []


def test_skill_scoped_returns_a_new_list_each_call() -> None:
    provider = skill_scoped_tools("pdf", make_tools("a"))
    ctx = ProviderContext(active_skill_id="pdf")
    assert provider.list(ctx) is not provider.list(ctx)


def test_skill_scoped_id_carries_the_skill() -> None:
    provider = skill_scoped_tools("pdf", [])
    assert provider.id == SKILL_SCOPED_ID_PREFIX + "pdf" == "skill-scoped:pdf"
    assert provider.skill_id == "pdf"


@pytest.mark.parametrize("skill_id", ["", "   ", "\t"])
def test_skill_scoped_refuses_an_empty_skill_id(skill_id: str) -> None:
    with pytest.raises(ConfigurationError, match="non-empty skill id"):
        skill_scoped_tools(skill_id, make_tools("a"))
