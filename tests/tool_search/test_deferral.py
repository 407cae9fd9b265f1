"""What is deferred: left out of the definitions, with ``tool_search`` offered in its place."""

from __future__ import annotations

import json

import pytest
from ts_helpers import catalogue, make

from toolwire.decorator import tool
from toolwire.errors import ConfigurationError
from toolwire.registry import ToolRegistry
from toolwire.tool_options import ToolOptions
from toolwire.tool_search import DeferralRules, ToolSearch
from toolwire.tool_search._deferral import definitions_chars
from toolwire.tools import define_tool


def _names(registry: ToolRegistry) -> list[str]:
    return [d["name"] for d in registry.definitions()]


def test_deferred_tools_leave_the_definitions_and_tool_search_takes_their_place() -> None:
    registry = ToolRegistry()
    registry.register(make("always_there", "A tool the model always sees.", defer=False))
    registry.register_all(catalogue())
    assert _names(registry) == ["always_there", "tool_search"]
    assert [t.name for t in registry.list(ctx=None)] == ["always_there", "tool_search"]  # type: ignore[arg-type]
    assert registry.deferred_names == {t.name for t in catalogue()}


def test_without_anything_deferred_there_is_no_tool_search() -> None:
    registry = ToolRegistry()
    registry.register(make("a", "A.", defer=False))
    assert _names(registry) == ["a"]
    assert registry.tool_search is None
    search = ToolSearch(registry)  # attached, but nothing is deferred: not offered
    assert _names(registry) == ["a"]
    registry.register(make("b", "B.", defer=True))
    assert _names(registry) == ["a", "tool_search"]
    assert registry.tool_search is search


def test_the_decorator_and_define_tool_take_defer_loading() -> None:
    @tool(options=ToolOptions(defer_loading=True))
    async def archive_board(board: str) -> str:
        """Archive a kanban board."""
        return board

    assert archive_board.defer_loading is True
    schema = {"type": "object", "properties": {}}
    built = define_tool(
        name="x", description="X.", schema=schema, execute=archive_board.execute, defer_loading=True
    )
    assert built.defer_loading is True
    with pytest.raises(Exception, match="defer_loading must be True or False"):
        define_tool(
            name="y", description="Y.", schema=schema, execute=built.execute, defer_loading="yes"
        )


def test_rules_defer_by_name_toolset_and_server() -> None:
    registry = ToolRegistry()
    registry.register_all(
        [
            make("plain", "P.", defer=False),
            make("listed", "L.", defer=False),
            make("mcp__linear__list_issues", "Linear.", defer=False),
            make("mcp__slack__slack_post_message", "Slack.", defer=False),
        ]
    )
    registry.register(
        define_tool(
            name="board",
            description="B.",
            schema={"type": "object"},
            execute=registry.get("plain").execute,
            toolset="kanban",
        )  # type: ignore[union-attr]
    )
    ToolSearch(
        registry, rules=DeferralRules(names=["listed"], toolsets=["kanban"], servers=["linear"])
    )
    assert _names(registry) == ["plain", "mcp__slack__slack_post_message", "tool_search"]


def test_a_threshold_defers_everything_but_what_must_stay() -> None:
    tools = [make(f"t{i}", f"Tool {i}.", defer=False) for i in range(5)]
    registry = ToolRegistry()
    registry.register_all(tools)
    registry.register(
        define_tool(
            name="pinned",
            description="P.",
            schema={"type": "object"},
            execute=tools[0].execute,
            always_include=True,
        )
    )
    ToolSearch(registry, rules=DeferralRules(max_tools=10, keep=["t0"]))
    assert len(_names(registry)) == 6  # under the threshold: nothing deferred, no tool_search
    registry.register_all([make(f"u{i}", f"More {i}.", defer=False) for i in range(5)])
    assert _names(registry) == ["t0", "pinned", "tool_search"]


def test_a_character_threshold_counts_the_definitions() -> None:
    tools = [make(f"t{i}", "x" * 100, defer=False) for i in range(3)]
    size = definitions_chars(tools)
    assert size == sum(
        len(json.dumps({"name": t.name, "description": t.description, "parameters": t.schema}))
        for t in tools
    )
    registry = ToolRegistry()
    registry.register_all(tools)
    ToolSearch(registry, rules=DeferralRules(max_chars=size - 1))
    assert _names(registry) == ["tool_search"]


@pytest.mark.parametrize(
    "kwargs",
    [{"names": "one_tool"}, {"toolsets": "web"}, {"max_tools": -1}, {"max_chars": True}],
)
def test_rules_refuse_what_would_be_misread(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        DeferralRules(**kwargs)  # type: ignore[arg-type]


def test_deferring_everything_sends_a_fraction_of_the_definitions() -> None:
    tools = [
        make(
            f"mcp__s{i}__tool_{i}",
            "Does a thing with a long description. " * 5,
            a="first parameter",
            b="second parameter",
        )
        for i in range(500)
    ]
    registry = ToolRegistry()
    registry.register_all(tools)
    shown = len(json.dumps(registry.definitions()))
    assert shown < 0.02 * definitions_chars(tools)
