"""Tasks on every key-value store (memory, SQLite, Redis, PostgreSQL): a task one registry runs
is seen, waited for and cancelled by another registry on the same store (as another process
would), and a task whose process died is reported lost. Memory and SQLite also run on trio."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "backends" / "kv"))

from exec_helpers import Calls, ctx
from kv_targets import KINDS, KvTarget, on_loops, open_target

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.execution.tasks import TASKS_SCOPE, TASKS_TOOL, Tasks, pending_task
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.stores import KeyValueBackend

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize(("kind", "anyio_backend"), on_loops(KINDS)),
]

POLL_S = 0.05


@pytest.fixture
async def target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    async with open_target(kind, tmp_path) as opened:
        yield opened


def _registry(
    backend: KeyValueBackend, recorder: Calls, seconds: float, gate: anyio.Event | None = None
) -> ToolRegistry:
    async def build(args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(seconds)
        if gate is not None:
            await gate.wait()
        return Ok("built")

    backends = CapabilityBackends(kv_store_factory=backend.scoped, processes=None)
    registry = ToolRegistry(backends=backends, reducers=None, tasks=Tasks(poll_s=POLL_S))
    registry.register(recorder.tool("build", build))
    return registry


async def _two(stack: AsyncExitStack, target: KvTarget) -> tuple[KeyValueBackend, KeyValueBackend]:
    first = await stack.enter_async_context(target.make())
    second = target.make()
    if second is not first:
        await stack.enter_async_context(second)
    return first, second


async def test_another_registry_waits_for_the_task_and_reads_its_result(target: KvTarget) -> None:
    recorder = Calls()
    async with AsyncExitStack() as stack:
        first, second = await _two(stack, target)
        gate = anyio.Event()
        runner = _registry(first, recorder, 0, gate)
        watcher = _registry(second, recorder, 0)
        task_id = pending_task(await runner.execute("build", {}, ctx(hand_off_s=0.01)))
        assert task_id is not None
        seen = await watcher.tasks.get(task_id, session_id="s1")
        assert seen is not None
        assert seen.status == "working"
        gate.set()
        ended = await watcher.tasks.wait(task_id, timeout_s=10)
    assert ended is not None
    assert ended.status == "completed"
    assert ended.result == Ok("built")


async def test_another_registry_cancels_the_task(target: KvTarget) -> None:
    recorder = Calls()
    async with AsyncExitStack() as stack:
        first, second = await _two(stack, target)
        runner = _registry(first, recorder, 60)
        other = _registry(second, recorder, 60)
        task_id = pending_task(await runner.execute("build", {}, ctx(hand_off_s=0.01)))
        assert task_id is not None
        await other.tasks.cancel(task_id)
        ended = await other.tasks.wait(task_id, timeout_s=10)
    assert ended is not None
    assert ended.status == "cancelled"
    assert isinstance(ended.result, Err)
    assert "cancelled" in ended.result.error


async def test_a_task_whose_process_died_is_reported_lost(target: KvTarget) -> None:
    recorder = Calls()
    async with target.make() as backend:
        store = backend.scoped(TASKS_TOOL, TASKS_SCOPE)
        stale = time.time() - 3600
        record: dict[str, Any] = {"tool": "build", "call": "c1", "session": "s1"}
        record["status"] = "working"
        record |= {"created": stale, "updated": stale, "ttl": 86400, "beat": stale}
        await store.set("task-dead", json.dumps(record))
        info = await _registry(backend, recorder, 0).tasks.wait("task-dead", timeout_s=5)
    assert info is not None
    assert info.status == "failed"
    assert isinstance(info.result, Err)
    assert info.result.reason == "task_lost"
