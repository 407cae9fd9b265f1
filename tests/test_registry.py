"""ToolRegistry: registration, lookup and the gated, cached tool definitions."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError, RegistrationError
from toolwire.execution import FilterOptions
from toolwire.registry import DEFAULT_TIMEOUT_S, ToolRegistry
from toolwire.results import Ok, ToolResult
from toolwire.tools import Tool, define_tool


async def _noop(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return Ok("ok")


def _tool(
    name: str,
    *,
    description: str = "A tool.",
    is_available: Callable[[], bool] | None = None,
    **options: Any,
) -> Tool:
    return define_tool(
        name=name,
        description=description,
        schema={"type": "object", "properties": {}},
        execute=_noop,
        is_available=is_available,
        **options,
    )


def _names(registry: ToolRegistry, allowed: list[str] | None = None, opts: Any = None) -> list[str]:
    return [d["name"] for d in registry.definitions(allowed, opts)]


@pytest.fixture
def mixed() -> ToolRegistry:
    """Built-ins, an always-included built-in, two MCP servers and two plugins."""
    registry = ToolRegistry(reducers=None)
    registry.register_all([_tool("read_file", toolset="file"), _tool("terminal")])
    registry.register(_tool("get_skill", always_include=True))
    registry.register_all([_tool("mcp__gh__create_issue"), _tool("mcp__gh__list__all")])
    registry.register(_tool("mcp__fs__read"))
    registry.register(_tool("weather"), plugin_id="weather-plugin")
    registry.register(_tool("jokes"), plugin_id="fun-plugin")
    return registry


# -- construction -----------------------------------------------------------------------------


def test_default_registry_registers_the_built_in_reducers() -> None:
    registry = ToolRegistry()
    assert registry.settings.reducers is not None
    assert {"terminal", "read_file", "kanban_list"} <= set(registry.settings.reducers)


def test_reducers_none_means_no_reducers() -> None:
    assert ToolRegistry(reducers=None).settings.reducers is None


def test_defaults() -> None:
    registry = ToolRegistry(reducers=None)
    assert registry.settings.default_timeout_s == DEFAULT_TIMEOUT_S == 300.0
    assert registry.settings.max_concurrency is None
    assert registry.backends is None
    assert registry.settings.definition_order == "registration"


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"default_timeout_s": 0}, "default_timeout_s"),
        ({"definition_order": "random"}, "definition_order"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], match: str) -> None:
    with pytest.raises(RegistrationError, match=match):
        ToolRegistry(reducers=None, **options)


# -- registration -----------------------------------------------------------------------------


def test_register_and_get() -> None:
    registry = ToolRegistry(reducers=None)
    tool = _tool("echo")
    registry.register(tool)
    assert registry.get("echo") is tool
    assert registry.get("missing") is None
    assert "echo" in registry
    assert len(registry) == 1
    assert list(registry) == [tool]
    assert registry.names == ["echo"]


def test_a_duplicate_name_is_refused_unless_replacing() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("echo", description="first"))
    with pytest.raises(RegistrationError, match=r"already registered.*replace=True"):
        registry.register(_tool("echo", description="second"))
    assert registry.get("echo").description == "first"  # type: ignore[union-attr]
    registry.register(_tool("echo", description="second"), replace=True)
    assert registry.get("echo").description == "second"  # type: ignore[union-attr]


def test_a_function_instead_of_a_tool_is_refused_with_a_hint() -> None:
    def plain() -> str:
        return ""

    with pytest.raises(RegistrationError, match="@tool"):
        ToolRegistry(reducers=None).register(plain)  # type: ignore[arg-type]


@pytest.mark.parametrize("plugin_id", ["", 3])
def test_a_plugin_id_must_be_a_non_empty_string(plugin_id: object) -> None:
    with pytest.raises(RegistrationError, match="plugin_id"):
        ToolRegistry(reducers=None).register(_tool("a"), plugin_id=plugin_id)  # type: ignore[arg-type]


def test_plugin_provenance_is_kept() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("a"), plugin_id="p1")
    registry.register(_tool("b"))
    assert (registry.plugin_id("a"), registry.plugin_id("b"), registry.plugin_id("c")) == (
        "p1",
        None,
        None,
    )
    entry = registry.entry("a")
    assert entry is not None
    assert (entry.tool.name, entry.plugin_id, entry.is_builtin) == ("a", "p1", False)


def test_register_all_registers_every_tool_with_the_plugin_id() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register_all([_tool("a"), _tool("b")], plugin_id="p")
    assert registry.names == ["a", "b"]
    assert registry.plugin_id("b") == "p"


def test_register_all_is_all_or_nothing_on_a_taken_name() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("b"))
    with pytest.raises(RegistrationError, match=r"\['b'\]"):
        registry.register_all([_tool("a"), _tool("b")])
    assert registry.names == ["b"]


def test_register_all_is_all_or_nothing_on_a_name_given_twice() -> None:
    registry = ToolRegistry(reducers=None)
    with pytest.raises(RegistrationError, match="same name twice"):
        registry.register_all([_tool("a"), _tool("c"), _tool("a")])
    assert len(registry) == 0


def test_register_all_is_all_or_nothing_on_a_non_tool() -> None:
    registry = ToolRegistry(reducers=None)
    with pytest.raises(RegistrationError, match="takes Tools"):
        registry.register_all([_tool("a"), "b"])  # type: ignore[list-item]
    assert len(registry) == 0


def test_register_all_can_replace() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("a", description="old"))
    registry.register_all([_tool("a", description="new")], replace=True)
    assert registry.get("a").description == "new"  # type: ignore[union-attr]


def test_unregister_says_whether_there_was_a_tool() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("a"))
    assert registry.unregister("a") is True
    assert registry.unregister("a") is False
    assert registry.get("a") is None


def test_available_hides_unavailable_and_crashing_gates() -> None:
    def crash() -> bool:
        raise RuntimeError("gate bug")

    registry = ToolRegistry(reducers=None)
    registry.register_all(
        [_tool("yes"), _tool("no", is_available=lambda: False), _tool("boom", is_available=crash)]
    )
    assert [t.name for t in registry.available()] == ["yes"]


def test_for_toolset_lists_the_available_tools_of_one_toolset() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register_all(
        [
            _tool("read_file", toolset="file"),
            _tool("write_file", toolset="file", is_available=lambda: False),
            _tool("terminal", toolset="terminal"),
        ]
    )
    assert [t.name for t in registry.for_toolset("file")] == ["read_file"]
    assert registry.for_toolset("web") == []


# -- definitions ------------------------------------------------------------------------------


def test_definitions_carry_name_description_and_the_schema() -> None:
    registry = ToolRegistry(reducers=None)
    tool = _tool("echo", description="Echo it.")
    registry.register(tool)
    (definition,) = registry.definitions()
    assert definition == {"name": "echo", "description": "Echo it.", "parameters": tool.schema}


def test_no_allowlist_means_unrestricted(mixed: ToolRegistry) -> None:
    assert _names(mixed) == mixed.names


def test_an_empty_allowlist_denies_every_built_in_but_always_include(mixed: ToolRegistry) -> None:
    assert _names(mixed, []) == [
        "get_skill",
        "mcp__gh__create_issue",
        "mcp__gh__list__all",
        "mcp__fs__read",
        "weather",
        "jokes",
    ]


def test_the_allowlist_gates_built_ins_only(mixed: ToolRegistry) -> None:
    assert _names(mixed, ["read_file", "weather"]) == [
        "read_file",
        "get_skill",
        "mcp__gh__create_issue",
        "mcp__gh__list__all",
        "mcp__fs__read",
        "weather",
        "jokes",
    ]


def test_mcp_server_allowlist(mixed: ToolRegistry) -> None:
    names = _names(mixed, opts=FilterOptions(allowed_mcp_servers=("gh",)))
    assert [n for n in names if n.startswith("mcp__")] == [
        "mcp__gh__create_issue",
        "mcp__gh__list__all",
    ]


def test_an_empty_mcp_server_allowlist_hides_mcp_tools_even_with_a_toolset(
    mixed: ToolRegistry,
) -> None:
    names = _names(mixed, ["read_file"], {"allowed_mcp_servers": []})
    assert not [n for n in names if n.startswith("mcp__")]
    assert "read_file" in names


def test_per_server_mcp_tool_lists_use_bare_names_with_double_underscores(
    mixed: ToolRegistry,
) -> None:
    names = _names(mixed, opts={"allowed_mcp_tools": {"gh": ["list__all"]}})
    assert "mcp__gh__list__all" in names
    assert "mcp__gh__create_issue" not in names
    assert "mcp__fs__read" in names  # a server absent from the map is not restricted


def test_an_empty_plugin_allowlist_keeps_only_built_ins(mixed: ToolRegistry) -> None:
    names = _names(mixed, opts={"allowed_plugins": []})
    assert "weather" not in names
    assert "jokes" not in names
    assert {"read_file", "terminal", "get_skill"} <= set(names)


def test_a_plugin_allowlist_keeps_listed_plugins(mixed: ToolRegistry) -> None:
    names = _names(mixed, opts={"allowed_plugins": ["weather-plugin"]})
    assert "weather" in names
    assert "jokes" not in names


def test_exclusion_beats_always_include_toolset_and_plugin_allowlists(mixed: ToolRegistry) -> None:
    opts = {
        "exclude_tools": ["get_skill", "read_file", "weather", "mcp__fs__read"],
        "allowed_plugins": ["weather-plugin"],
        "allowed_mcp_servers": ["fs"],
    }
    names = _names(mixed, ["read_file"], opts)
    assert names == []


def test_a_malformed_mcp_name_belongs_to_no_allowed_server() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("mcp__solo"))
    assert _names(registry) == ["mcp__solo"]
    assert _names(registry, opts={"allowed_mcp_servers": ["solo"]}) == []


def test_filter_options_with_an_unknown_key_are_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="allowed_mcp_servers"):
        ToolRegistry(reducers=None).definitions(None, {"allowed_servers": ["x"]})


def test_an_allowlist_given_as_a_string_is_a_configuration_error() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("read_file"))
    with pytest.raises(ConfigurationError, match=r"\['read_file'\]"):
        registry.definitions("read_file")


@pytest.mark.anyio
async def test_execute_parallel_refuses_an_allowlist_given_as_a_string() -> None:
    registry = ToolRegistry(reducers=None)
    with pytest.raises(ConfigurationError, match="list of tool names"):
        await registry.execute_parallel([], ToolContext(session_id="s"), allowed_tools="x")


def test_filter_options_given_a_string_are_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="list of names"):
        FilterOptions(exclude_tools="terminal")  # type: ignore[arg-type]


def test_availability_is_checked_every_time() -> None:
    state = {"up": True}
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("flaky", is_available=lambda: state["up"]))
    assert _names(registry) == ["flaky"]
    state["up"] = False
    assert _names(registry) == []
    state["up"] = True
    assert _names(registry) == ["flaky"]


def test_a_crashing_availability_gate_hides_the_tool() -> None:
    def crash() -> bool:
        raise OSError("probe failed")

    registry = ToolRegistry(reducers=None)
    registry.register(_tool("probe", is_available=crash))
    assert _names(registry) == []


def test_definitions_follow_registry_changes() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("a"))
    assert _names(registry, []) == []
    assert _names(registry, ["a"]) == ["a"]
    registry.register(_tool("b"))
    assert _names(registry, ["a", "b"]) == ["a", "b"]
    registry.register(_tool("a", description="new"), replace=True)
    assert registry.definitions(["a"])[0]["description"] == "new"
    registry.unregister("a")
    assert _names(registry, ["a", "b"]) == ["b"]
    registry.register_all([_tool("c")])
    assert _names(registry, ["a", "b", "c"]) == ["b", "c"]


def test_repeated_definitions_are_equal_and_independent_lists() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register(_tool("a"))
    first = registry.definitions()
    first.clear()
    assert _names(registry) == ["a"]


def test_changing_a_definition_changes_nothing_the_model_is_shown_later() -> None:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string", "enum": ["a", "b"]}},
        "required": ["path"],
    }
    registry = ToolRegistry(reducers=None)
    registry.register(define_tool(name="t", description="d", schema=schema, execute=_noop))
    shown = registry.definitions()[0]
    parameters: Any = shown["parameters"]
    parameters["properties"]["path"]["enum"].append("/etc/shadow")
    parameters["required"].clear()
    parameters["extra"] = True
    again: Any = registry.definitions()[0]["parameters"]
    assert again == schema
    assert again["properties"]["path"]["enum"] == ["a", "b"]
    assert registry.get("t").schema == schema  # type: ignore[union-attr]


def test_sorted_order_is_by_name_whatever_the_registration_order() -> None:
    one = ToolRegistry(reducers=None, definition_order="sorted")
    two = ToolRegistry(reducers=None, definition_order="sorted")
    one.register_all([_tool("b"), _tool("a"), _tool("C")])
    two.register_all([_tool("C"), _tool("b"), _tool("a")])
    assert _names(one) == _names(two) == ["C", "a", "b"]


def test_registration_order_is_the_default() -> None:
    registry = ToolRegistry(reducers=None)
    registry.register_all([_tool("b"), _tool("a")])
    assert _names(registry) == ["b", "a"]


# -- definitions follow the gates of spec 02 (property) -------------------------------------

_BUILTINS = ["read_file", "terminal", "web_search", "get_skill"]
_MCP = ["mcp__gh__issue", "mcp__gh__pr__list", "mcp__fs__read", "mcp__bad"]
_PLUGIN = {"weather": "p1", "jokes": "p2"}
_ALL = [*_BUILTINS, *_MCP, *_PLUGIN]
_SERVERS = ["gh", "fs", "bad"]


@st.composite
def _scenarios(draw: st.DrawFn) -> tuple[dict[str, dict[str, Any]], Any, Any]:
    tools = {
        name: {
            "available": draw(st.booleans()),
            "always_include": draw(st.booleans()) if name in _BUILTINS else False,
        }
        for name in draw(st.lists(st.sampled_from(_ALL), unique=True))
    }
    allowed = draw(st.none() | st.lists(st.sampled_from(_ALL), unique=True))
    opts = draw(
        st.none()
        | st.builds(
            FilterOptions,
            allowed_mcp_servers=st.none() | st.lists(st.sampled_from(_SERVERS), unique=True),
            allowed_plugins=st.none() | st.lists(st.sampled_from(["p1", "p2"]), unique=True),
            allowed_mcp_tools=st.none()
            | st.dictionaries(
                st.sampled_from(_SERVERS),
                st.lists(st.sampled_from(["issue", "pr__list", "read", "x"]), unique=True),
            ),
            exclude_tools=st.none() | st.lists(st.sampled_from(_ALL), unique=True),
        )
    )
    return tools, allowed, opts


def _expected(name: str, spec: dict[str, Any], allowed: Any, opts: Any) -> bool:
    """Spec 02 and reference §2.2/2.3, written out independently."""
    if not spec["available"]:
        return False
    is_mcp = name.startswith("mcp__")
    plugin = _PLUGIN.get(name)
    builtin = not is_mcp and plugin is None
    if builtin and allowed is not None and not spec["always_include"] and name not in allowed:
        return False
    if opts is None:
        return True
    if opts.exclude_tools is not None and name in opts.exclude_tools:
        return False
    if is_mcp:
        parts = name.split("__")
        server = parts[1] if len(parts) >= 3 else None
        bare = "__".join(parts[2:])
        if opts.allowed_mcp_servers is not None and server not in opts.allowed_mcp_servers:
            return False
        tools = opts.allowed_mcp_tools
        if tools is not None and server in tools and bare not in tools[server]:
            return False
    return not (
        plugin is not None
        and opts.allowed_plugins is not None
        and plugin not in opts.allowed_plugins
    )


_UP: dict[str, bool] = {}
_PREBUILT = {
    (name, always): _tool(name, is_available=lambda name=name: _UP[name], always_include=always)
    for name in _ALL
    for always in (False, True)
}  # built once: compiling schemas per example would dominate the run time


@settings(max_examples=100, deadline=None)
@given(_scenarios())
def test_definitions_match_the_spec_gates(
    scenario: tuple[dict[str, dict[str, Any]], Any, Any],
) -> None:
    tools, allowed, opts = scenario
    registry = ToolRegistry(reducers=None)
    for name, spec in tools.items():
        _UP[name] = spec["available"]
        registry.register(_PREBUILT[name, spec["always_include"]], plugin_id=_PLUGIN.get(name))
    expected = [n for n, spec in tools.items() if _expected(n, spec, allowed, opts)]
    assert _names(registry, allowed, opts) == expected


@pytest.mark.anyio
async def test_aclose_runs_cleanups_last_first_once_even_when_one_fails() -> None:
    ran: list[str] = []

    async def async_cleanup() -> None:
        ran.append("async")

    def failing() -> None:
        ran.append("failing")
        raise RuntimeError("boom")

    registry = ToolRegistry(reducers=None)
    registry.add_cleanup(lambda: ran.append("sync"))
    registry.add_cleanup(failing)
    registry.add_cleanup(async_cleanup)
    async with registry:
        pass
    await registry.aclose()
    assert ran == ["async", "failing", "sync"]


def test_add_cleanup_refuses_a_non_callable() -> None:
    with pytest.raises(RegistrationError, match="add_cleanup"):
        ToolRegistry(reducers=None).add_cleanup("not callable")  # type: ignore[arg-type]


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # real child processes
@pytest.mark.anyio
async def test_closing_the_registry_stops_the_background_processes_of_its_backends(
    tmp_path: Path,
) -> None:
    from toolwire.capabilities._backends import CapabilityBackends
    from toolwire.capabilities.kinds.process._backends import LocalProcessBackend
    from toolwire.capabilities.kinds.process.background import ProcessManager
    from toolwire.toolbox._processes import process_tools

    manager = ProcessManager(str(tmp_path / "logs"))
    backends = CapabilityBackends(
        processes=LocalProcessBackend(manager), fs_read=(str(tmp_path),), fs_write=(str(tmp_path),)
    )
    async with ToolRegistry(backends=backends) as registry:
        registry.register_all(process_tools())
        started = await registry.execute(
            "process_start",
            {"command": "sleep 300"},
            ToolContext(session_id="s", working_dir=str(tmp_path)),
        )
        assert isinstance(started.result, Ok), started.result
        assert started.result.structured is not None
        pid = started.result.structured["pid"]
        os.kill(pid, 0)  # running
    with anyio.fail_after(10):
        while _alive(pid):
            await anyio.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass  # not our child any more: fall back to signalling it
    else:
        if waited == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
