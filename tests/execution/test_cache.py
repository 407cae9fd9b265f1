"""The opt-in result cache: successes only, keyed by tool, session, personality and arguments."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from exec_helpers import Calls, ctx, registry_with, run

from toolwire.calls import ToolCall
from toolwire.context import ToolContext
from toolwire.execution.cache import ResultCache, canonical_args
from toolwire.execution.hooks import AfterCall, deny
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tools import CachePolicy


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


POLICY = CachePolicy(ttl_s=10, max_entries=2)


def _key(args: dict[str, Any], session: str = "s", personality: str | None = None) -> Any:
    return ResultCache.key(POLICY, session, personality, args)


# -- canonical arguments and keys -------------------------------------------------------------


def test_canonical_args_ignore_key_order_and_spacing() -> None:
    assert canonical_args({"b": 1, "a": [1, 2]}) == canonical_args({"a": [1, 2], "b": 1})
    assert canonical_args({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_canonical_args_handle_dates_and_other_objects() -> None:
    assert canonical_args({"d": datetime.date(2024, 5, 1)}) == '{"d":"2024-05-01"}'
    assert canonical_args({"o": object}).startswith('{"o":"')


def test_keys_differ_by_session_personality_and_arguments() -> None:
    base = _key({"q": 1})
    assert base == _key({"q": 1})
    assert base != _key({"q": 1}, session="other")
    assert base != _key({"q": 1}, personality="p")
    assert base != _key({"q": 2})


def test_a_key_function_replaces_the_canonical_arguments() -> None:
    policy = CachePolicy(key_fn=lambda args: str(args["q"]).lower())
    assert ResultCache.key(policy, "s", None, {"q": "A", "noise": 1}) == ResultCache.key(
        policy, "s", None, {"q": "a", "noise": 2}
    )


# -- the store --------------------------------------------------------------------------------


def test_an_entry_lives_for_its_ttl() -> None:
    clock = Clock()
    cache = ResultCache(clock)
    cache.put("t", _key({}), Ok("v"), POLICY)
    clock.now += 9.9
    assert cache.get("t", _key({})) == Ok("v")
    clock.now += 0.1
    assert cache.get("t", _key({})) is None
    assert len(cache) == 0


def test_the_least_recently_used_entry_is_evicted_first() -> None:
    cache = ResultCache(Clock())
    cache.put("t", _key({"n": 1}), Ok("1"), POLICY)
    cache.put("t", _key({"n": 2}), Ok("2"), POLICY)
    assert cache.get("t", _key({"n": 1})) == Ok("1")  # 1 is now the most recent
    cache.put("t", _key({"n": 3}), Ok("3"), POLICY)
    assert cache.get("t", _key({"n": 2})) is None
    assert cache.get("t", _key({"n": 1})) == Ok("1")
    assert len(cache) == 2


def test_bounds_are_per_tool() -> None:
    cache = ResultCache(Clock())
    for tool in ("a", "b"):
        for n in range(3):
            cache.put(tool, _key({"n": n}), Ok(str(n)), POLICY)
    assert len(cache) == 4


def test_clear_forgets_one_tool_or_everything() -> None:
    cache = ResultCache(Clock())
    cache.put("a", _key({}), Ok("a"), POLICY)
    cache.put("b", _key({}), Ok("b"), POLICY)
    cache.clear("a")
    assert cache.get("a", _key({})) is None
    assert cache.get("b", _key({})) == Ok("b")
    cache.clear()
    assert len(cache) == 0


# -- in the pipeline --------------------------------------------------------------------------


def _call(name: str, args: Any = "{}", call_id: str = "c") -> ToolCall:
    return ToolCall(id=call_id, name=name, args=args)


@pytest.mark.anyio
async def test_a_repeated_call_is_served_from_the_cache_without_running() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("lookup", cache=True))
    first = await registry.execute_parallel([_call("lookup", {"q": 1})], ctx())
    second = await registry.execute_parallel([_call("lookup", '{"q": 1}')], ctx())
    assert first[0].result == second[0].result == Ok("lookup ok")
    assert (first[0].cached, second[0].cached) == (False, True)
    assert seen.names == ["lookup"]


@pytest.mark.anyio
async def test_tools_without_a_policy_are_never_cached() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("plain"))
    await run(registry, ["plain"])
    await run(registry, ["plain"])
    assert seen.names == ["plain", "plain"]


@pytest.mark.anyio
async def test_errors_are_never_cached() -> None:
    async def fail(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Err("temporary outage", ErrorCode.EXECUTION_FAILED)

    seen = Calls()
    registry = registry_with(seen.tool("flaky", fail, cache=True))
    await run(registry, ["flaky"])
    (outcome,) = await run(registry, ["flaky"])
    assert not outcome.cached
    assert seen.names == ["flaky", "flaky"]


@pytest.mark.anyio
async def test_raised_exceptions_are_never_cached() -> None:
    async def boom(args: dict[str, Any], context: ToolContext) -> ToolResult:
        raise RuntimeError("boom")

    seen = Calls()
    registry = registry_with(seen.tool("boom", boom, cache=True))
    await run(registry, ["boom"])
    await run(registry, ["boom"])
    assert seen.names == ["boom", "boom"]


@pytest.mark.anyio
async def test_truncated_results_are_never_cached() -> None:
    async def big(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Ok("x" * 100)

    seen = Calls()
    registry = registry_with(seen.tool("big", big, cache=True))
    await run(registry, ["big"], ctx(result_budget_chars=10))
    assert len(registry.settings.result_cache) == 0
    await run(registry, ["big"], ctx(result_budget_chars=10))
    assert seen.names == ["big", "big"]


@pytest.mark.anyio
async def test_the_cache_is_keyed_by_session_personality_and_arguments() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("lookup", cache=True))

    async def once(args: Any, **fields: Any) -> bool:
        (outcome,) = await registry.execute_parallel([_call("lookup", args)], ctx(**fields))
        return outcome.cached

    assert not await once({"q": 1})
    assert not await once({"q": 1}, session_id="other")
    assert not await once({"q": 1}, personality_id="coder")
    assert not await once({"q": 2})
    assert await once({"q": 1})
    assert await once({"q": 1}, personality_id="coder")
    assert len(seen.log) == 4


@pytest.mark.anyio
async def test_the_ttl_expires_entries() -> None:
    seen = Calls()
    clock = Clock()
    registry = registry_with(
        seen.tool("lookup", cache=CachePolicy(ttl_s=60)), result_cache=ResultCache(clock)
    )
    await run(registry, ["lookup"])
    clock.now += 61
    (outcome,) = await run(registry, ["lookup"])
    assert not outcome.cached
    assert seen.names == ["lookup", "lookup"]


@pytest.mark.anyio
async def test_re_registering_a_tool_drops_its_cached_results() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("lookup", cache=True))
    await run(registry, ["lookup"])
    registry.register(seen.tool("lookup", cache=True), replace=True)
    (outcome,) = await run(registry, ["lookup"])
    assert not outcome.cached


@pytest.mark.anyio
async def test_a_hit_is_trimmed_to_the_budget_of_the_call_that_gets_it() -> None:
    async def medium(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Ok("m" * 30)

    seen = Calls()
    registry = registry_with(seen.tool("medium", medium, cache=True))
    (alone,) = await run(registry, ["medium"], ctx(result_budget_chars=40))
    assert alone.result == Ok("m" * 30)
    outcomes = await run(registry, ["medium", "medium"], ctx(result_budget_chars=40))
    assert all(o.cached for o in outcomes)
    assert [o.result for o in outcomes] == [Ok("m" * 20 + "\n[truncated — 30 chars total]")] * 2


@pytest.mark.anyio
async def test_after_hooks_still_see_a_cache_hit() -> None:
    async def secret(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return Ok("password=hunter2")

    seen = Calls()
    registry = registry_with(seen.tool("env", secret, cache=True))
    hooked: list[bool] = []

    def redact(call: AfterCall) -> ToolResult:
        hooked.append(True)
        assert isinstance(call.result, Ok)
        return Ok(call.result.value.replace("hunter2", "[REDACTED]"))

    registry.hooks.after_tool_call(redact)
    first = await run(registry, ["env"])
    second = await run(registry, ["env"])
    assert second[0].cached
    assert first[0].result == second[0].result == Ok("password=[REDACTED]")
    assert hooked == [True, True]


@pytest.mark.anyio
async def test_before_hooks_can_still_deny_a_cached_call() -> None:
    seen = Calls()
    registry = registry_with(seen.tool("lookup", cache=True))
    await run(registry, ["lookup"])
    registry.hooks.before_tool_call(lambda call: deny("locked"))
    (outcome,) = await run(registry, ["lookup"])
    assert outcome.result == Err("locked", ErrorCode.NOT_AVAILABLE, reason="hook_denied")
