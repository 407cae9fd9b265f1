"""Approval tokens on every key-value store (memory, SQLite, Redis, PostgreSQL): a token issued
by one process is honoured by another, and consumed once however many race for it. Memory and
SQLite also run on trio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "backends" / "kv"))

from exec_helpers import Calls, ctx
from kv_targets import KINDS, KvTarget, on_loops, open_target

from toolwire.calls import CallOutcome
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.execution.approvals import pending_approval
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok
from toolwire.stores import KeyValueBackend

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize(("kind", "anyio_backend"), on_loops(KINDS)),
]

WORKERS = 6


def _registry(backend: KeyValueBackend, recorder: Calls) -> ToolRegistry:
    backends = CapabilityBackends(kv_store_factory=backend.scoped, processes=None)
    registry = ToolRegistry(backends=backends, reducers=None)
    registry.register(recorder.tool("deploy", requires_approval=True))
    return registry


@pytest.fixture
async def target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    async with open_target(kind, tmp_path) as opened:
        yield opened


async def _workers(stack: AsyncExitStack, target: KvTarget, count: int) -> list[KeyValueBackend]:
    """``count`` connections to the store, as separate processes would open (memory: one)."""
    opened: list[KeyValueBackend] = []
    for _ in range(count):
        backend = target.make()
        if backend not in opened:
            await stack.enter_async_context(backend)
        opened.append(backend)
    return opened


async def test_a_token_from_one_process_runs_the_call_once_in_another(target: KvTarget) -> None:
    recorder = Calls()
    context = ctx(session_id="resumed")
    async with AsyncExitStack() as stack:
        first, second, third = await _workers(stack, target, 3)
        asked = await _registry(first, recorder).execute("deploy", {"env": "prod"}, context)
        pending = pending_approval(asked)
        assert pending is not None
        ran = await _registry(second, recorder).execute(
            "deploy", {"env": "prod"}, context, approvals=[pending]
        )
        resumed = await _registry(third, recorder).execute(
            "deploy", {"env": "prod"}, context, approvals=[pending]
        )
    assert ran.result == Ok("deploy ok")
    assert isinstance(resumed.result, Err)
    assert resumed.result.reason == "approval_used"
    assert recorder.names == ["deploy"]


async def test_processes_racing_for_one_token_run_the_call_once(target: KvTarget) -> None:
    recorder = Calls()
    context = ctx(session_id="race")
    async with AsyncExitStack() as stack:
        backends = await _workers(stack, target, WORKERS)
        asked = await _registry(backends[0], recorder).execute("deploy", {}, context)
        pending = pending_approval(asked)
        assert pending is not None
        outcomes: list[CallOutcome] = []

        async def worker(backend: KeyValueBackend) -> None:
            registry = _registry(backend, recorder)
            outcomes.append(await registry.execute("deploy", {}, context, approvals=[pending]))

        async with anyio.create_task_group() as group:
            for backend in backends:
                group.start_soon(worker, backend)
    assert recorder.names == ["deploy"]
    assert sum(outcome.result == Ok("deploy ok") for outcome in outcomes) == 1
    refused = [o.result for o in outcomes if isinstance(o.result, Err)]
    assert len(refused) == WORKERS - 1
    assert {result.reason for result in refused} == {"approval_used"}
