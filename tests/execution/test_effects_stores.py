"""The effect journal on every key-value store (memory, SQLite, Redis, PostgreSQL): registries
sharing a store (as processes would) act once per idempotency key, however many race, and a
resumed call is answered from the journal. Memory and SQLite also run on trio."""

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

from toolwire.calls import CallOutcome
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.stores import KeyValueBackend

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize(("kind", "anyio_backend"), on_loops(KINDS)),
]

WORKERS = 4


@pytest.fixture
async def target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    async with open_target(kind, tmp_path) as opened:
        yield opened


async def _charge(args: dict[str, Any], context: ToolContext) -> ToolResult:
    await anyio.sleep(0.01)
    return Ok(f"charged {args.get('amount')}")


def _registry(backend: KeyValueBackend, recorder: Calls) -> ToolRegistry:
    backends = CapabilityBackends(kv_store_factory=backend.scoped, processes=None)
    registry = ToolRegistry(backends=backends, reducers=None)
    registry.register(recorder.tool("pay", _charge, side_effects=True))
    return registry


async def _workers(stack: AsyncExitStack, target: KvTarget, count: int) -> list[KeyValueBackend]:
    opened: list[KeyValueBackend] = []
    for _ in range(count):
        backend = target.make()
        if backend not in opened:
            await stack.enter_async_context(backend)
        opened.append(backend)
    return opened


async def test_racing_registries_act_once_per_key(target: KvTarget) -> None:
    recorder = Calls()
    outcomes: list[CallOutcome] = []
    async with AsyncExitStack() as stack:
        backends = await _workers(stack, target, WORKERS)

        async def attempt(backend: KeyValueBackend) -> None:
            registry = _registry(backend, recorder)
            outcomes.append(await registry.execute("pay", {"amount": 3}, ctx(), call_id="c1"))

        async with anyio.create_task_group() as group:
            for backend in backends:
                group.start_soon(attempt, backend)
        resumed = await _registry(backends[0], recorder).execute(
            "pay", {"amount": 3}, ctx(), call_id="c1"
        )
    assert len(recorder.log) == 1
    assert sum(o.result == Ok("charged 3") for o in outcomes) >= 1
    for outcome in outcomes:  # the others were told it is running elsewhere, or its result
        result = outcome.result
        assert result == Ok("charged 3") or (
            isinstance(result, Err) and result.reason in ("effect_in_progress", "effect_uncertain")
        )
    assert resumed.result == Ok("charged 3")


async def test_a_new_connection_answers_from_the_journal(target: KvTarget) -> None:
    recorder = Calls()
    backend = target.make()
    first = await _registry(backend, recorder).execute("pay", {"amount": 1}, ctx(), call_id="x")
    if target.kind != "memory":  # a memory store lives as long as its backend
        await backend.aclose()
    async with target.make() as reopened:  # a restart: a new connection to the same store
        again = await _registry(reopened, recorder).execute(
            "pay", {"amount": 1}, ctx(), call_id="x"
        )
    assert first.result == again.result == Ok("charged 1")
    assert len(recorder.log) == 1
