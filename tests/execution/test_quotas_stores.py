"""Quotas on every key-value store (memory, SQLite, Redis, PostgreSQL): reservations are atomic,
so a batch of 50 parallel calls never overshoots a limit of 10, on one registry or on two
registries sharing the store (as two processes would). Memory and SQLite also run on trio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "backends" / "kv"))

from exec_helpers import Calls, ctx
from kv_targets import KINDS, KvTarget, on_loops, open_target

from toolwire.calls import CallOutcome, ToolCall
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import AtomicKeyValueStore
from toolwire.context import ToolContext
from toolwire.execution.quota_slots import claim_slot
from toolwire.execution.quotas import Quota, Quotas
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.stores import KeyValueBackend

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize(("kind", "anyio_backend"), on_loops(KINDS)),
]


@pytest.fixture
async def target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    async with open_target(kind, tmp_path) as opened:
        yield opened


def _registry(backend: KeyValueBackend, recorder: Calls, *limits: Quota) -> ToolRegistry:
    backends = CapabilityBackends(kv_store_factory=backend.scoped, processes=None)
    registry = ToolRegistry(backends=backends, reducers=None, quotas=Quotas(limits))
    registry.register(recorder.tool("search", _pause))
    return registry


async def _pause(args: dict[str, Any], context: ToolContext) -> ToolResult:
    await anyio.sleep(0.01)
    return Ok("found", cost_usd=args.get("cost"))


def _batch(count: int, prefix: str = "c", **args: Any) -> list[ToolCall]:
    return [ToolCall(id=f"{prefix}{i}", name="search", args=args) for i in range(count)]


def _refused(outcomes: list[CallOutcome]) -> list[Err]:
    return [o.result for o in outcomes if isinstance(o.result, Err)]


async def test_fifty_parallel_calls_never_overshoot_a_limit_of_ten(target: KvTarget) -> None:
    recorder = Calls()
    quota = Quota(name="searches", calls=10, window_s=3600)
    async with target.make() as backend:
        outcomes = await _registry(backend, recorder, quota).execute_parallel(_batch(50), ctx())
    assert len(recorder.log) == 10
    assert sum(o.result.ok for o in outcomes) == 10
    refused = _refused(outcomes)
    assert len(refused) == 40
    assert {r.reason for r in refused} == {"quota_exceeded"}
    assert "quota 'searches' allows 10 calls per 3600 s per session" in refused[0].error
    assert "resets in" in refused[0].error


async def test_two_registries_on_one_store_share_the_limit(target: KvTarget) -> None:
    recorder = Calls()
    quota = Quota(name="shared", calls=10, window_s=3600, scope="global")
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(target.make())
        second = target.make()
        if second is not first:
            await stack.enter_async_context(second)
        one = _registry(first, recorder, quota)
        two = _registry(second, recorder, quota)
        results: dict[str, list[CallOutcome]] = {}

        async def run(name: str, registry: ToolRegistry, session: str) -> None:
            results[name] = await registry.execute_parallel(
                _batch(25, prefix=name), ctx(session_id=session)
            )

        async with anyio.create_task_group() as group:
            group.start_soon(run, "a", one, "s-a")
            group.start_soon(run, "b", two, "s-b")
    ran = sum(o.result.ok for outcomes in results.values() for o in outcomes)
    assert ran == len(recorder.log) == 10


async def test_concurrent_calls_never_exceed_the_limit(target: KvTarget) -> None:
    running = 0
    peak = 0

    async def hold(args: dict[str, Any], context: ToolContext) -> ToolResult:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.sleep(0.3)  # long enough for every call of the batch to try its luck
        running -= 1
        return Ok("done")

    recorder = Calls()
    async with target.make() as backend:
        backends = CapabilityBackends(kv_store_factory=backend.scoped, processes=None)
        quotas = Quotas([Quota(name="slots", concurrent=3)])
        registry = ToolRegistry(backends=backends, reducers=None, quotas=quotas)
        registry.register(recorder.tool("search", hold))
        first = await registry.execute_parallel(_batch(20), ctx())
        assert peak <= 3
        assert sum(o.result.ok for o in first) == 3
        refusal = _refused(first)[0]
        assert "allows 3 concurrent calls" in refusal.error
        assert "a slot frees when a running call ends" in refusal.error
        # every slot was given back: the next batch gets its three again
        second = await registry.execute_parallel(_batch(3, prefix="d"), ctx())
    assert all(o.result.ok for o in second)


async def test_cost_is_charged_when_calls_end_and_then_refuses(target: KvTarget) -> None:
    recorder = Calls()
    quota = Quota(name="budget", cost_usd=1.0)
    async with target.make() as backend:
        registry = _registry(backend, recorder, quota)
        spent = await registry.execute_parallel(_batch(2, cost=0.5), ctx())
        assert all(o.result.ok for o in spent)
        refused = await registry.execute("search", {"cost": 0.01}, ctx())
        elsewhere = await registry.execute("search", {"cost": 0.01}, ctx(session_id="other"))
    assert isinstance(refused.result, Err)
    assert refused.result.reason == "quota_exceeded"
    assert "$1 of cost" in refused.result.error
    assert "does not reset" in refused.result.error
    assert elsewhere.result.ok  # cost is counted per session
    assert len(recorder.log) == 3


async def test_a_slot_is_not_lost_under_a_call_that_outlives_its_lease(target: KvTarget) -> None:
    """Regression (outside check, issue 23): the running counter expired ``lease_s`` after it
    was created, so a second call ran beside a long one holding the only slot."""
    entered = anyio.Event()
    release = anyio.Event()

    async def hold(args: dict[str, Any], context: ToolContext) -> ToolResult:
        if entered.is_set():
            return Ok("short")  # a call that got a slot while the long one holds it
        entered.set()
        await release.wait()
        return Ok("long")

    recorder = Calls()
    async with target.make() as backend:
        backends = CapabilityBackends(kv_store_factory=backend.scoped, processes=None)
        quotas = Quotas([Quota(name="one", concurrent=1, lease_s=0.6)])
        registry = ToolRegistry(backends=backends, reducers=None, quotas=quotas)
        registry.register(recorder.tool("search", hold))
        async with anyio.create_task_group() as group:
            group.start_soon(registry.execute, "search", {}, ctx())
            await entered.wait()
            await anyio.sleep(1.5)  # two and a half leases: renewed, never lapsed
            second = (await registry.execute("search", {}, ctx())).result
            release.set()
        assert isinstance(second, Err)
        assert second.reason == "quota_exceeded"
        after = (await registry.execute("search", {}, ctx())).result
    assert after.ok
    assert len(recorder.log) == 2


async def test_a_slot_held_by_a_dead_holder_comes_back_after_its_lease(target: KvTarget) -> None:
    recorder = Calls()
    async with target.make() as backend:
        registry = _registry(backend, recorder, Quota(name="one", concurrent=1, lease_s=0.5))
        store = backend.scoped("toolwire-quotas", "tool:toolwire-quotas")
        assert isinstance(store, AtomicKeyValueStore)
        # a process that took every slot of session s1 and died without giving them back
        assert await claim_slot(store, "slot:one:s=s1", 1, 0.5) is not None
        refused = (await registry.execute("search", {}, ctx())).result
        assert isinstance(refused, Err)
        assert refused.reason == "quota_exceeded"
        await anyio.sleep(1.0)
        assert (await registry.execute("search", {}, ctx())).result.ok
