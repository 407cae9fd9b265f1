"""cached: TTL, one shared in-flight discovery, new lists, failures never cached."""

from __future__ import annotations

import anyio
import pytest
from provider_helpers import AsyncProvider, SyncProvider, make_tools, names

from toolwire.errors import ConfigurationError, ProviderError
from toolwire.providers import ProviderContext, cached, list_tools
from toolwire.tools import Tool

CTX = ProviderContext(iteration=1, session_id="s1")


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.anyio
async def test_a_fresh_entry_is_served_without_asking_again() -> None:
    inner = AsyncProvider(make_tools("a"))
    provider = cached(inner, 60, clock=Clock())
    await list_tools(provider, CTX)
    await list_tools(provider, CTX)
    assert inner.runs == 1


@pytest.mark.anyio
async def test_a_hit_is_answered_synchronously() -> None:
    provider = cached(AsyncProvider(make_tools("a")), 60, clock=Clock())
    await list_tools(provider, CTX)
    assert isinstance(provider.list(CTX), list)


@pytest.mark.anyio
async def test_an_expired_entry_is_discovered_again() -> None:
    clock = Clock()
    inner = AsyncProvider(make_tools("a"))
    provider = cached(inner, 60, clock=clock)
    await list_tools(provider, CTX)
    clock.now += 59.9
    await list_tools(provider, CTX)
    assert inner.runs == 1
    clock.now += 0.2
    await list_tools(provider, CTX)
    assert inner.runs == 2


@pytest.mark.anyio
async def test_every_call_returns_a_new_list_even_on_a_hit() -> None:
    provider = cached(AsyncProvider(make_tools("a", "b")), 60, clock=Clock())
    first = await list_tools(provider, CTX)
    first.clear()
    second = await list_tools(provider, CTX)
    third = await list_tools(provider, CTX)
    assert names(second) == ["a", "b"]
    assert second is not third


@pytest.mark.anyio
async def test_twenty_concurrent_callers_share_one_discovery() -> None:
    inner = AsyncProvider(make_tools("a", "b"))
    inner.gate = anyio.Event()
    provider = cached(inner, 60, clock=Clock())
    results: list[list[Tool]] = []

    async def caller() -> None:
        results.append(await list_tools(provider, CTX))

    async with anyio.create_task_group() as group:
        for _ in range(20):
            group.start_soon(caller)
        await anyio.wait_all_tasks_blocked()
        inner.gate.set()
    assert inner.runs == 1
    assert len(results) == 20
    assert all(names(r) == ["a", "b"] for r in results)
    assert len({id(r) for r in results}) == 20


@pytest.mark.anyio
async def test_concurrent_callers_all_see_a_shared_failure_and_it_is_not_cached() -> None:
    inner = AsyncProvider(make_tools("a"))
    inner.gate = anyio.Event()
    inner.error = ConnectionError("hub down")
    provider = cached(inner, 60, clock=Clock())
    failures: list[BaseException] = []

    async def caller() -> None:
        try:
            await list_tools(provider, CTX)
        except ProviderError as exc:
            failures.append(exc.__cause__)  # type: ignore[arg-type]

    async with anyio.create_task_group() as group:
        for _ in range(5):
            group.start_soon(caller)
        await anyio.wait_all_tasks_blocked()
        inner.gate.set()
    assert inner.runs == 1
    assert len(failures) == 5
    assert all(isinstance(f, ConnectionError) for f in failures)
    inner.error = None
    assert names(await list_tools(provider, CTX)) == ["a"]
    assert inner.runs == 2


@pytest.mark.anyio
async def test_a_cancelled_discovery_is_retried_by_a_waiter() -> None:
    inner = AsyncProvider(make_tools("a"))
    inner.gate = anyio.Event()
    provider = cached(inner, 60, clock=Clock())
    results: list[list[Tool]] = []
    driver_scope = anyio.CancelScope()

    async def driver() -> None:
        with driver_scope:
            await list_tools(provider, CTX)

    async def waiter() -> None:
        results.append(await list_tools(provider, CTX))

    async with anyio.create_task_group() as group:
        group.start_soon(driver)
        await anyio.wait_all_tasks_blocked()  # the driver waits on the hub
        group.start_soon(waiter)
        await anyio.wait_all_tasks_blocked()  # the waiter waits on the driver
        driver_scope.cancel()
        await anyio.wait_all_tasks_blocked()  # the waiter has started a new discovery
        inner.gate.set()
    assert driver_scope.cancelled_caught
    assert names(results[0]) == ["a"]
    assert inner.runs == 2


def test_a_sync_inner_stays_sync_and_is_cached() -> None:
    inner = SyncProvider(make_tools("a"))
    provider = cached(inner, 60, clock=Clock())
    assert isinstance(provider.list(CTX), list)
    assert isinstance(provider.list(CTX), list)
    assert inner.calls == 1


def test_a_sync_failure_is_not_cached() -> None:
    inner = SyncProvider(make_tools("a"))
    inner.error = RuntimeError("once")
    provider = cached(inner, 60, clock=Clock())
    with pytest.raises(RuntimeError):
        provider.list(CTX)
    inner.error = None
    assert names(provider.list(CTX)) == ["a"]  # type: ignore[arg-type]


def test_default_key_separates_skills_and_sessions_but_not_iterations() -> None:
    inner = SyncProvider(make_tools("a"))
    provider = cached(inner, 60, clock=Clock())
    provider.list(ProviderContext(iteration=1, session_id="s1"))
    provider.list(ProviderContext(iteration=2, session_id="s1"))
    assert inner.calls == 1
    provider.list(ProviderContext(iteration=2, session_id="s2"))
    provider.list(ProviderContext(iteration=2, session_id="s1", active_skill_id="pdf"))
    provider.list(ProviderContext(session_id="s1", extra={"tenant": ["unhashable"]}))
    assert inner.calls == 4


def test_a_custom_key_can_share_entries_across_sessions() -> None:
    inner = SyncProvider(make_tools("a"))
    provider = cached(inner, 60, key=lambda ctx: "all", clock=Clock())
    provider.list(ProviderContext(session_id="s1"))
    provider.list(ProviderContext(session_id="s2"))
    assert inner.calls == 1


def test_clear_forgets_entries() -> None:
    inner = SyncProvider(make_tools("a"))
    provider = cached(inner, 60, clock=Clock())
    provider.list(CTX)
    provider.clear()
    provider.list(CTX)
    assert inner.calls == 2


def test_oldest_key_is_evicted_past_max_entries() -> None:
    inner = SyncProvider(make_tools("a"))
    provider = cached(inner, 60, max_entries=2, clock=Clock())
    for session in ("s1", "s2", "s3", "s1"):
        provider.list(ProviderContext(session_id=session))
    assert inner.calls == 4


def test_id_names_the_inner_provider() -> None:
    assert cached(AsyncProvider([], id="hub"), 5).id == "cached:hub"


@pytest.mark.parametrize("ttl", [0, -1.0])
def test_ttl_must_be_positive(ttl: float) -> None:
    with pytest.raises(ConfigurationError, match="ttl_s"):
        cached(SyncProvider([]), ttl)
