"""The quota stage: which calls a quota covers, its scopes, windows and refusals, what is given
back, and configuration errors (memory store; every store in test_quotas_stores)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import anyio
import pytest
from exec_helpers import Calls, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.calls import ToolCall
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.execution.quotas import QUOTAS_SCOPE, QUOTAS_TOOL, Quota, Quotas
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.stores import MemoryKeyValueBackend

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _registry(
    recorder: Calls, *limits: Quota, clock: Clock | None = None, **tools: dict[str, Any]
) -> tuple[ToolRegistry, MemoryKeyValueBackend]:
    kv = MemoryKeyValueBackend()
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    quotas = Quotas(limits, clock=clock or Clock())
    registry = ToolRegistry(backends=backends, reducers=None, quotas=quotas)
    for name, options in (tools or {"search": {}}).items():
        registry.register(recorder.tool(name, **options))
    return registry, kv


def _reason(result: ToolResult) -> str | None:
    return result.reason if isinstance(result, Err) else None


async def test_a_window_resets_the_count() -> None:
    recorder, clock = Calls(), Clock()
    registry, _ = _registry(recorder, Quota(name="q", calls=2, window_s=60), clock=clock)
    for _ in range(2):
        assert (await registry.execute("search", {}, ctx())).result.ok
    refused = (await registry.execute("search", {}, ctx())).result
    assert _reason(refused) == "quota_exceeded"
    clock.now += 60
    assert (await registry.execute("search", {}, ctx())).result.ok
    assert len(recorder.log) == 3


async def test_quotas_cover_named_tools_and_toolsets_only() -> None:
    recorder = Calls()
    quota = Quota(name="q", calls=0, tools=["search"], toolsets=["web"])
    registry, kv = _registry(
        recorder, quota, search={}, fetch={"toolset": "web"}, read={"toolset": "file"}
    )
    assert _reason((await registry.execute("search", {}, ctx())).result) == "quota_exceeded"
    assert _reason((await registry.execute("fetch", {}, ctx())).result) == "quota_exceeded"
    assert (await registry.execute("read", {}, ctx())).result.ok
    assert recorder.names == ["read"]
    store = kv.scoped(QUOTAS_TOOL, QUOTAS_SCOPE)
    assert all("read" not in key for key in await store.list())


@pytest.mark.parametrize(
    ("scope", "shared"), [("session", False), ("personality", True), ("global", True)]
)
async def test_the_scope_decides_who_shares_a_count(scope: Any, shared: bool) -> None:
    recorder = Calls()
    registry, _ = _registry(recorder, Quota(name="q", calls=1, scope=scope))
    first = ctx(session_id="a", personality_id="p")
    other = ctx(session_id="b", personality_id="p" if scope != "global" else "x")
    assert (await registry.execute("search", {}, first)).result.ok
    second = (await registry.execute("search", {}, other)).result
    assert second.ok is not shared


async def test_a_refusal_by_one_quota_gives_back_what_another_reserved() -> None:
    recorder = Calls()
    registry, _ = _registry(
        recorder, Quota(name="calls", calls=5), Quota(name="none-at-all", calls=0, tools=["x"])
    )
    registry.register(recorder.tool("x"))
    for _ in range(3):
        assert _reason((await registry.execute("x", {}, ctx())).result) == "quota_exceeded"
    outcomes = [await registry.execute("search", {}, ctx()) for _ in range(6)]
    assert [o.result.ok for o in outcomes] == [True] * 5 + [False]


async def test_wall_time_is_charged_when_calls_end() -> None:
    async def slow(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(0.02)
        return Ok("slow")

    recorder = Calls()
    quota = Quota(name="time", wall_time_s=0.01, window_s=3600)
    registry, _ = _registry(recorder, quota, search={"body": slow})
    assert (await registry.execute("search", {}, ctx())).result.ok
    refused = (await registry.execute("search", {}, ctx())).result
    assert isinstance(refused, Err)
    assert refused.reason == "quota_exceeded"
    assert "0.01 s of wall time" in refused.error


async def test_a_cancelled_call_gives_its_slot_back() -> None:
    started = anyio.Event()

    async def hang(args: dict[str, Any], context: ToolContext) -> ToolResult:
        started.set()
        await anyio.sleep(60)
        return Ok("never")

    recorder = Calls()
    registry, _ = _registry(recorder, Quota(name="one", concurrent=1), search={"body": hang})
    context = ctx()
    async with anyio.create_task_group() as group:
        group.start_soon(registry.execute, "search", {}, context)
        await started.wait()
        busy = (await registry.execute("search", {}, context)).result
        group.cancel_scope.cancel()
    assert _reason(busy) == "quota_exceeded"
    registry.register(recorder.tool("search"), replace=True)
    assert (await registry.execute("search", {}, ctx())).result.ok


async def test_a_task_keeps_its_slot_until_it_ends() -> None:
    release = anyio.Event()

    async def wait(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await release.wait()
        return Ok("finished")

    recorder = Calls()
    registry, _ = _registry(recorder, Quota(name="one", concurrent=1), search={"body": wait})
    handed = await registry.execute("search", {}, ctx(hand_off_s=0.01))
    assert isinstance(handed.result, Ok)
    assert handed.result.structured is not None
    task_id = handed.result.structured["task"]["id"]
    assert _reason((await registry.execute("search", {}, ctx())).result) == "quota_exceeded"
    release.set()
    info = await registry.tasks.wait(task_id, timeout_s=10)
    assert info is not None
    assert info.status == "completed"
    assert (await registry.execute("search", {}, ctx())).result.ok


async def test_without_a_store_covered_calls_are_refused() -> None:
    recorder = Calls()
    registry = ToolRegistry(reducers=None, quotas=Quotas([Quota(name="q", calls=5)]))
    registry.register(recorder.tool("search"))
    result = (await registry.execute("search", {}, ctx())).result
    assert _reason(result) == "quota_store_missing"
    assert recorder.log == []


async def test_an_explicit_store_is_used() -> None:
    store = MemoryKeyValueBackend().scoped("mine", "tool:mine")
    recorder = Calls()
    registry = ToolRegistry(reducers=None, quotas=Quotas([Quota(name="q", calls=1)], store=store))
    registry.register(recorder.tool("search"))
    assert (await registry.execute("search", {}, ctx())).result.ok
    assert _reason((await registry.execute("search", {}, ctx())).result) == "quota_exceeded"
    assert await store.list("calls:q:") != []


@pytest.mark.parametrize(
    "options",
    [
        {"name": "q"},
        {"name": "", "calls": 1},
        {"name": "a:b", "calls": 1},
        {"name": "q", "calls": -1},
        {"name": "q", "calls": 1.5},
        {"name": "q", "cost_usd": -1},
        {"name": "q", "calls": 1, "window_s": 0},
        {"name": "q", "calls": 1, "scope": "team"},
        {"name": "q", "calls": 1, "tools": "search"},
    ],
)
def test_a_bad_quota_says_how_to_fix_it(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        Quota(**options)


def test_quotas_refuse_duplicates_a_single_quota_and_a_plain_store() -> None:
    quota = Quota(name="q", calls=1)
    with pytest.raises(ConfigurationError, match="share a name"):
        Quotas([quota, quota])
    with pytest.raises(ConfigurationError, match="list of Quota"):
        Quotas(quota)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="compare_and_set"):
        Quotas([quota], store=object())  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(
    limit=st.integers(min_value=0, max_value=6),
    sessions=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=20),
)
def test_each_session_runs_exactly_up_to_its_limit(limit: int, sessions: list[str]) -> None:
    """Whatever the batch, each session runs min(its calls, limit) calls and no more."""
    recorder = Calls()
    registry, _ = _registry(recorder, Quota(name="q", calls=limit))

    async def run() -> list[bool]:
        outcomes = []
        for session in sessions:  # one batch per session, all calls of it at once
            batch = [ToolCall(id=f"{session}{i}", name="search", args={}) for i in range(3)]
            outcomes += await registry.execute_parallel(batch, ctx(session_id=session))
        return [o.result.ok for o in outcomes]

    oks = anyio.run(run)
    ran = Counter(context.session_id for _, _, context in recorder.log)
    for session, count in Counter(sessions).items():
        assert ran[session] == min(3 * count, limit)
    assert sum(oks) == len(recorder.log)
