"""Property: whatever the registry, gates, hooks and batch, execute_parallel keeps its promises.

Random registries (tools that succeed, fail, raise, hang in a coroutine or a thread, return huge
output, declare capabilities, are unavailable, sequential or cached), random allowlists, filter
options, hooks and batches (unknown names, malformed and invalid arguments), with and without
dry-run. Each example checks: nothing raises; exactly one outcome per call, in input order;
blocked, invalid and dry-run calls never execute; permitted valid calls execute at most once (once
unless cached); successes fit the call's budget; every error says something.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities import storage
from toolwire.context import ToolContext
from toolwire.execution.budget import call_budget, split_budget, truncation_marker
from toolwire.execution.gates import FilterOptions
from toolwire.execution.hooks import AfterCall, BeforeCall, BeforeDecision, deny
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.schema import JsonSchemaValidator
from toolwire.tools import Tool

BUILTINS = ["read_file", "terminal", "web_search", "get_skill", "todo"]
MCP = ["mcp__gh__issue", "mcp__gh__pr__list", "mcp__fs__read", "mcp__odd"]
PLUGINS = {"weather": "p1", "jokes": "p2"}
UNIVERSE = [*BUILTINS, *MCP, *PLUGINS]
UNKNOWN = ["nope", "", "mcp__zz__x"]
BEHAVIOURS = ["ok", "err", "raise", "hang", "thread_hang", "huge", "base_exception"]
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": True}
VALIDATOR = JsonSchemaValidator(SCHEMA)  # compiled once: per-example compiling is slow
TIMEOUT_S = 0.03


class Odd(BaseException):
    pass


@dataclass
class Spec:
    behaviour: str
    available: bool
    always_include: bool
    declares_capabilities: bool
    sequential: bool
    cached: bool
    max_result_chars: int | None


@dataclass
class Scenario:
    tools: dict[str, Spec]
    allowed: list[str] | None
    filters: FilterOptions | None
    denied_by_hook: set[str]
    crashing_hook: set[str]
    crashing_after_hook: bool
    calls: list[tuple[str, str]]
    dry_run: bool
    budget: int
    max_concurrency: int | None
    executed: list[str] = field(default_factory=list)


_mostly = st.sampled_from([True, True, True, False])
_rarely = st.sampled_from([False, False, False, True])
_specs = st.builds(
    Spec,
    behaviour=st.sampled_from(BEHAVIOURS),
    available=_mostly,
    always_include=_rarely,
    declares_capabilities=_rarely,
    sequential=_rarely,
    cached=_rarely,
    max_result_chars=st.none() | st.integers(1, 500),
)
_args = st.sampled_from(['{"n": 1}', "{}", "", '{"n": 1}', '{"n": "secret"}', '{"n": 1', "[1]"])


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    names = draw(st.lists(st.sampled_from(UNIVERSE), unique=True, max_size=6))
    tools = {name: draw(_specs) for name in names}
    callable_names = st.sampled_from([*names, *UNKNOWN]) if names else st.sampled_from(UNKNOWN)
    filters = draw(
        st.none()
        | st.builds(
            FilterOptions,
            allowed_mcp_servers=st.none() | st.lists(st.sampled_from(["gh", "fs", "odd"])),
            allowed_plugins=st.none() | st.lists(st.sampled_from(["p1", "p2"])),
            allowed_mcp_tools=st.none()
            | st.dictionaries(
                st.sampled_from(["gh", "fs"]),
                st.lists(st.sampled_from(["issue", "pr__list", "read"])),
            ),
            exclude_tools=st.none() | st.lists(st.sampled_from(UNIVERSE)),
        )
    )
    return Scenario(
        tools=tools,
        allowed=draw(st.none() | st.lists(st.sampled_from(UNIVERSE), unique=True)),
        filters=filters,
        denied_by_hook=set(draw(st.lists(st.sampled_from(names or UNKNOWN), max_size=2))),
        crashing_hook=set(draw(st.lists(st.sampled_from(names or UNKNOWN), max_size=1))),
        crashing_after_hook=draw(_rarely),
        calls=draw(st.lists(st.tuples(callable_names, _args), max_size=7)),
        dry_run=draw(_rarely),
        budget=draw(st.sampled_from([1, 7, 40]) | st.integers(1, 3000)),
        max_concurrency=draw(st.none() | st.integers(1, 3)),
    )


def _permitted(name: str, scenario: Scenario) -> bool:
    """Spec 02 gates plus the before-hooks, written out independently of the pipeline."""
    spec = scenario.tools.get(name)
    if spec is None or not spec.available or spec.declares_capabilities:
        return False
    is_mcp = name.startswith("mcp__")
    plugin = PLUGINS.get(name)
    builtin = not is_mcp and plugin is None
    allowed, opts = scenario.allowed, scenario.filters
    if builtin and allowed is not None and not spec.always_include and name not in allowed:
        return False
    if opts is None:
        return name not in scenario.denied_by_hook and name not in scenario.crashing_hook
    if opts.exclude_tools is not None and name in opts.exclude_tools:
        return False
    if is_mcp:
        parts = name.split("__")
        server = parts[1] if len(parts) >= 3 else None
        bare = "__".join(parts[2:])
        if opts.allowed_mcp_servers is not None and server not in opts.allowed_mcp_servers:
            return False
        per_server = opts.allowed_mcp_tools or {}
        if server in per_server and bare not in per_server[server]:
            return False
    if (
        plugin is not None
        and opts.allowed_plugins is not None
        and plugin not in opts.allowed_plugins
    ):
        return False
    return name not in scenario.denied_by_hook and name not in scenario.crashing_hook


def _valid(raw: str) -> bool:
    return raw in ('{"n": 1}', "{}", "")


def _build(scenario: Scenario, release: threading.Event) -> ToolRegistry:
    async def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        assert ctx.tool_call_id is not None
        scenario.executed.append(ctx.tool_call_id)
        name = call_names[ctx.tool_call_id]
        behaviour = scenario.tools[name].behaviour
        if behaviour == "err":
            return Err("refused", ErrorCode.NOT_AVAILABLE)
        if behaviour == "raise":
            raise RuntimeError("tool bug")
        if behaviour == "base_exception":
            raise Odd("odd")
        if behaviour == "hang":
            await anyio.sleep(30)
        if behaviour == "thread_hang":
            await anyio.to_thread.run_sync(release.wait, 30, abandon_on_cancel=True)
        if behaviour == "huge":
            return Ok("x" * 200_000)
        return Ok(f"{name} done " * 10)

    call_names = {f"c{i}": name for i, (name, _) in enumerate(scenario.calls)}
    registry = ToolRegistry(
        reducers=None, max_concurrency=scenario.max_concurrency, default_timeout_s=TIMEOUT_S
    )
    for name, spec in scenario.tools.items():
        tool = Tool(
            name=name,
            description="d",
            schema=SCHEMA,
            execute=execute,
            validator=VALIDATOR,
            is_available=lambda up=spec.available: up,
            always_include=spec.always_include,
            capabilities=[storage("session")] if spec.declares_capabilities else [],
            sequential=spec.sequential,
            cache=True if spec.cached else None,  # type: ignore[arg-type]
            max_result_chars=spec.max_result_chars,
            timeout_s=TIMEOUT_S,
        )
        registry.register(tool, plugin_id=PLUGINS.get(name))

    def before(call: BeforeCall) -> BeforeDecision | None:
        if call.tool_name in scenario.crashing_hook:
            raise RuntimeError("hook bug")
        if call.tool_name in scenario.denied_by_hook:
            return deny("denied by policy")
        return None

    def after(call: AfterCall) -> ToolResult | None:
        if scenario.crashing_after_hook:
            raise RuntimeError("after hook bug")
        return None

    registry.hooks.before_tool_call(before)
    registry.hooks.after_tool_call(after)
    return registry


def _check(scenario: Scenario, outcomes: list[CallOutcome]) -> None:
    calls = scenario.calls
    assert len(outcomes) == len(calls)
    assert [(o.tool_call_id, o.name) for o in outcomes] == [
        (f"c{i}", name) for i, (name, _) in enumerate(calls)
    ]
    runnable = {
        f"c{i}"
        for i, (name, raw) in enumerate(calls)
        if _permitted(name, scenario) and _valid(raw) and not scenario.dry_run
    }
    executed = scenario.executed
    assert len(executed) == len(set(executed)), "a call executed twice"
    assert set(executed) <= runnable, "a blocked, invalid or dry-run call executed"
    uncached = {f"c{i}" for i, (name, _) in enumerate(calls) if f"c{i}" in runnable}
    uncached = {c for c in uncached if not scenario.tools[calls[int(c[1:])][0]].cached}
    assert uncached <= set(executed), "a permitted call did not execute"
    share = split_budget(scenario.budget, len(calls))
    for (name, _), outcome in zip(calls, outcomes, strict=True):
        result = outcome.result
        if isinstance(result, Err):
            assert result.error.strip()
            assert result.code in set(ErrorCode)
            if name not in scenario.tools:
                assert result.code == ErrorCode.NOT_AVAILABLE
        elif not scenario.dry_run:
            limit = call_budget(share, scenario.tools[name].max_result_chars)
            assert len(result.value) <= limit + len(truncation_marker(200_000))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(scenarios())
def test_execute_parallel_keeps_its_promises(scenario: Scenario) -> None:
    release = threading.Event()
    registry = _build(scenario, release)
    ctx = ToolContext(session_id="s", dry_run=scenario.dry_run, result_budget_chars=scenario.budget)
    batch = [
        ToolCall(id=f"c{i}", name=name, args=raw) for i, (name, raw) in enumerate(scenario.calls)
    ]

    async def main() -> list[CallOutcome]:
        with anyio.fail_after(10):
            return await registry.execute_parallel(
                batch, ctx, allowed_tools=scenario.allowed, filter_opts=scenario.filters
            )

    try:
        outcomes = anyio.run(main)
    finally:
        release.set()
    _check(scenario, outcomes)
