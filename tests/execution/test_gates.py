"""Execution-time gates: unknown, surface exclusion, allowlist, filters, availability, backends."""

from __future__ import annotations

import pytest
from exec_helpers import Calls, ctx, registry_with, run

from toolwire.capabilities import fs_reach, network, process, secrets, storage
from toolwire.errors import ConfigurationError
from toolwire.execution.gates import (
    FilterOptions,
    RegisteredTool,
    check_call,
    coerce_filter_options,
    mcp_parts,
    passes_filter,
)
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok

# -- the gates through execute_parallel -------------------------------------------------------


@pytest.mark.anyio
async def test_unknown_tool_is_not_available_with_the_exact_message() -> None:
    (outcome,) = await run(registry_with(), ["nope"])
    assert outcome.result == Err(
        "Unknown tool: nope", ErrorCode.NOT_AVAILABLE, reason="unknown_tool"
    )
    assert (outcome.tool_call_id, outcome.name) == ("c0", "nope")


@pytest.mark.anyio
async def test_an_unknown_tool_names_the_nearest_tools_the_caller_may_call() -> None:
    """Regression (outside check, issue 23): a misspelt name got no hint, although
    ``toolwire call`` suggested the nearest names."""
    seen = Calls()
    registry = registry_with(seen.tool("read_file"), seen.tool("write_file"), seen.tool("terminal"))
    (outcome,) = await run(registry, ["read_fil"])
    assert outcome.result == Err(
        "Unknown tool: read_fil; did you mean: read_file, write_file?",
        ErrorCode.NOT_AVAILABLE,
        reason="unknown_tool",
    )
    assert seen.log == []


@pytest.mark.anyio
async def test_an_unknown_tool_never_suggests_a_tool_the_caller_may_not_call() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("read_file"), seen.tool("read_files"))
    (outcome,) = await run(registry, ["read_fil"], allowed_tools=["read_files"])
    assert isinstance(outcome.result, Err)
    assert outcome.result.error == "Unknown tool: read_fil; did you mean: read_files?"
    (hidden,) = await run(
        registry, ["read_fil"], filter_opts={"exclude_tools": ["read_file", "read_files"]}
    )
    assert isinstance(hidden.result, Err)
    assert hidden.result.error == "Unknown tool: read_fil"


@pytest.mark.anyio
async def test_an_excluded_tool_is_not_available_on_this_surface_and_never_runs() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("terminal", always_include=True))
    (outcome,) = await run(registry, ["terminal"], filter_opts={"exclude_tools": ["terminal"]})
    assert outcome.result == Err(
        "Tool terminal is not available on this surface", ErrorCode.NOT_AVAILABLE, reason="excluded"
    )
    assert seen.log == []


@pytest.mark.anyio
async def test_a_built_in_outside_the_allowlist_is_not_permitted_and_never_runs() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("terminal"), seen.tool("read_file"))
    outcomes = await run(registry, ["terminal", "read_file"], allowed_tools=["read_file"])
    assert outcomes[0].result == Err(
        "Tool terminal is not permitted for this personality",
        ErrorCode.NOT_AVAILABLE,
        reason="not_permitted",
    )
    assert outcomes[1].result == Ok("read_file ok")
    assert seen.names == ["read_file"]


@pytest.mark.anyio
async def test_an_empty_allowlist_blocks_every_built_in_except_always_include() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("terminal"), seen.tool("get_skill", always_include=True))
    outcomes = await run(registry, ["terminal", "get_skill"], allowed_tools=[])
    assert isinstance(outcomes[0].result, Err)
    assert outcomes[1].result == Ok("get_skill ok")
    assert seen.names == ["get_skill"]


@pytest.mark.anyio
async def test_no_allowlist_is_unrestricted() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("terminal"))
    (outcome,) = await run(registry, ["terminal"], allowed_tools=None)
    assert outcome.result == Ok("terminal ok")


@pytest.mark.anyio
async def test_the_allowlist_does_not_gate_mcp_or_plugin_tools() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("mcp__gh__issue"))
    registry.register(seen.tool("weather"), plugin_id="p")
    outcomes = await run(registry, ["mcp__gh__issue", "weather"], allowed_tools=[])
    assert [o.result for o in outcomes] == [Ok("mcp__gh__issue ok"), Ok("weather ok")]


@pytest.mark.anyio
async def test_mcp_server_filter_blocks_at_execution_time() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("mcp__gh__issue"), seen.tool("mcp__fs__read"))
    outcomes = await run(
        registry,
        ["mcp__gh__issue", "mcp__fs__read"],
        filter_opts=FilterOptions(allowed_mcp_servers=("fs",)),
    )
    assert outcomes[0].result == Err(
        "Tool mcp__gh__issue is not permitted for this personality",
        ErrorCode.NOT_AVAILABLE,
        reason="not_permitted",
    )
    assert outcomes[1].result == Ok("mcp__fs__read ok")
    assert seen.names == ["mcp__fs__read"]


@pytest.mark.anyio
async def test_an_empty_mcp_server_list_blocks_mcp_tools_even_with_a_toolset() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("mcp__gh__issue"))
    (outcome,) = await run(
        registry,
        ["mcp__gh__issue"],
        allowed_tools=["mcp__gh__issue"],
        filter_opts={"allowed_mcp_servers": []},
    )
    assert isinstance(outcome.result, Err)
    assert seen.log == []


@pytest.mark.anyio
async def test_per_server_tool_lists_block_unlisted_bare_names() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("mcp__gh__pr__list"), seen.tool("mcp__gh__delete_repo"))
    outcomes = await run(
        registry,
        ["mcp__gh__pr__list", "mcp__gh__delete_repo"],
        filter_opts={"allowed_mcp_tools": {"gh": ["pr__list"]}},
    )
    assert outcomes[0].result == Ok("mcp__gh__pr__list ok")
    assert isinstance(outcomes[1].result, Err)
    assert seen.names == ["mcp__gh__pr__list"]


@pytest.mark.anyio
async def test_plugin_filter_blocks_other_plugins_and_keeps_built_ins() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("read_file"))
    registry.register(seen.tool("weather"), plugin_id="weather-plugin")
    outcomes = await run(registry, ["read_file", "weather"], filter_opts={"allowed_plugins": []})
    assert outcomes[0].result == Ok("read_file ok")
    assert outcomes[1].result == Err(
        "Tool weather is not permitted for this personality",
        ErrorCode.NOT_AVAILABLE,
        reason="not_permitted",
    )


@pytest.mark.anyio
async def test_exclusion_beats_plugin_allowlist_and_explicit_toolset() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("read_file"))
    registry.register(seen.tool("weather"), plugin_id="p")
    outcomes = await run(
        registry,
        ["read_file", "weather"],
        allowed_tools=["read_file"],
        filter_opts={"exclude_tools": ["read_file", "weather"], "allowed_plugins": ["p"]},
    )
    assert [o.result.reason for o in outcomes] == ["excluded", "excluded"]  # type: ignore[union-attr]
    assert seen.log == []


@pytest.mark.anyio
async def test_an_unavailable_tool_is_not_currently_available_and_never_runs() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("browser", is_available=lambda: False))
    (outcome,) = await run(registry, ["browser"])
    assert outcome.result == Err(
        "Tool browser is not currently available", ErrorCode.NOT_AVAILABLE, reason="unavailable"
    )
    assert seen.log == []


@pytest.mark.anyio
async def test_a_crashing_availability_check_fails_closed() -> None:
    def crash() -> bool:
        raise RuntimeError("probe bug")

    seen = Calls()
    registry = registry_with(seen.tool("browser", is_available=crash))
    (outcome,) = await run(registry, ["browser"])
    assert isinstance(outcome.result, Err)
    assert outcome.result.reason == "unavailable"
    assert seen.log == []


@pytest.mark.anyio
@pytest.mark.parametrize(
    "declaration",
    [network(["*"]), secrets(["a/b"]), storage("session"), fs_reach(read=["/x"]), process(["git"])],
)
async def test_capabilities_without_backends_fail_closed(declaration: object) -> None:
    seen = Calls()
    registry = registry_with(seen.tool("needs", capabilities=[declaration]), backends=None)
    (outcome,) = await run(registry, ["needs"])
    assert outcome.result == Err(
        "Tool needs declares capabilities but no capability backends are configured",
        ErrorCode.NOT_AVAILABLE,
        reason="no_backends",
    )
    assert seen.log == []


@pytest.mark.anyio
async def test_no_capabilities_run_without_backends_in_a_mixed_batch() -> None:
    seen = Calls()
    registry = registry_with(
        seen.tool("pure"), seen.tool("needs", capabilities=[storage("session")])
    )
    outcomes = await run(registry, ["pure", "needs", "pure"])
    assert outcomes[0].result == Ok("pure ok")
    assert isinstance(outcomes[1].result, Err)
    assert outcomes[2].result == Ok("pure ok")
    assert seen.names == ["pure", "pure"]


@pytest.mark.anyio
async def test_gates_run_in_spec_order() -> None:
    seen = Calls()
    registry = registry_with(
        seen.tool("a", is_available=lambda: False, capabilities=[network(["*"])]),
        seen.tool("b", capabilities=[network(["*"])], schema={"type": "object", "required": ["x"]}),
    )
    excluded_and_unavailable = await run(registry, ["a"], filter_opts={"exclude_tools": ["a"]})
    not_permitted_and_unavailable = await run(registry, ["a"], allowed_tools=[])
    unavailable_and_no_backends = await run(registry, ["a"])
    no_backends_and_invalid = await run(registry, ["b"])
    assert [
        o[0].result.reason  # type: ignore[union-attr]
        for o in (
            excluded_and_unavailable,
            not_permitted_and_unavailable,
            unavailable_and_no_backends,
            no_backends_and_invalid,
        )
    ] == ["excluded", "not_permitted", "unavailable", "no_backends"]
    assert seen.log == []


@pytest.mark.anyio
async def test_every_rejection_has_a_non_empty_message() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("t", is_available=lambda: False))
    outcomes = await registry.execute_parallel(
        [{"id": "1", "name": "t"}, {"id": "2", "name": ""}, {"id": "3"}], ctx()
    )
    assert all(isinstance(o.result, Err) and o.result.error.strip() for o in outcomes)


# -- the gate functions -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("mcp__gh__issue", ("gh", "issue")),
        ("mcp__gh__pr__list", ("gh", "pr__list")),
        ("mcp__solo", None),
        ("read_file", None),
    ],
)
def test_mcp_parts_split_server_and_bare_name(name: str, parts: tuple[str, str] | None) -> None:
    assert mcp_parts(name) == parts


def _entry(name: str, plugin_id: str | None = None) -> RegisteredTool:
    return RegisteredTool(Calls().tool(name), plugin_id)


def test_built_in_means_neither_mcp_nor_plugin() -> None:
    assert _entry("read_file").is_builtin
    assert not _entry("mcp__gh__x").is_builtin
    assert not _entry("weather", "p").is_builtin


def test_no_filter_options_pass_everything() -> None:
    assert passes_filter(_entry("mcp__gh__x"), None)


def test_an_empty_plugin_allowlist_does_not_touch_mcp_or_built_ins() -> None:
    opts = FilterOptions(allowed_plugins=())
    assert passes_filter(_entry("read_file"), opts)
    assert passes_filter(_entry("mcp__gh__x"), opts)
    assert not passes_filter(_entry("weather", "p"), opts)


def test_check_call_lets_a_permitted_call_on() -> None:
    assert check_call(_entry("read_file"), frozenset({"read_file"}), None) is None


def test_filter_options_normalise_lists_and_have_a_hashable_key() -> None:
    opts = FilterOptions(
        allowed_mcp_servers=["gh"],  # type: ignore[arg-type]
        allowed_mcp_tools={"gh": ["issue"]},  # type: ignore[dict-item]
        exclude_tools=["x"],  # type: ignore[arg-type]
    )
    assert opts.allowed_mcp_servers == ("gh",)
    assert opts.allowed_mcp_tools == {"gh": ("issue",)}
    hash(opts.cache_key)


def test_coerce_accepts_options_mappings_and_none() -> None:
    opts = FilterOptions(allowed_plugins=("p",))
    assert coerce_filter_options(opts) is opts
    assert coerce_filter_options(None) is None
    assert coerce_filter_options({"allowed_plugins": ["p"]}) == opts


def test_coerce_refuses_unknown_keys_naming_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="exclude_tools"):
        coerce_filter_options({"excludeTools": ["x"]})


@pytest.mark.anyio
async def test_execute_parallel_raises_for_unknown_filter_keys_a_programming_error() -> None:
    with pytest.raises(ConfigurationError):
        await ToolRegistry(reducers=None).execute_parallel([], ctx(), filter_opts={"bogus": 1})
