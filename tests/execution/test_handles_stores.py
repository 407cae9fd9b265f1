"""Result handles on every key-value store (memory, SQLite, Redis, PostgreSQL): a handle made by
one process is read by another on the same store, and the session cap holds under a burst of
parallel calls. Memory and SQLite also run on trio."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "backends" / "kv"))

from exec_helpers import ctx
from kv_targets import KINDS, KvTarget, on_loops, open_target

from toolwire.calls import ToolCall
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.execution.handles import ResultHandles, find_handle
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.stores import KeyValueBackend
from toolwire.toolbox._kept_results import read_result
from toolwire.tools import define_tool

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize(("kind", "anyio_backend"), on_loops(KINDS)),
]

TEXT = "".join(f"row {i:04d}\n" for i in range(1000))  # 9,000 chars


async def _big(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return Ok(TEXT)


def _registry(backend: KeyValueBackend, handles: ResultHandles | None = None) -> ToolRegistry:
    backends = CapabilityBackends(kv_store_factory=backend.scoped, processes=None)
    registry = ToolRegistry(
        backends=backends, reducers=None, result_handles=handles or ResultHandles()
    )
    big = define_tool(
        name="big", description="A big result.", schema={"type": "object"}, execute=_big
    )
    registry.register_all([big, read_result])
    return registry


@pytest.fixture
async def target(kind: str, tmp_path: Path) -> AsyncIterator[KvTarget]:
    async with open_target(kind, tmp_path) as opened:
        yield opened


async def test_a_handle_made_in_one_process_is_read_in_another(target: KvTarget) -> None:
    context = ctx(session_id="shared-session", result_budget_chars=1000)
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(target.make())
        second = target.make()  # another worker on the same store (memory: the same one)
        if second is not first:
            await stack.enter_async_context(second)
        outcome = await _registry(first).execute("big", {}, context)
        assert isinstance(outcome.result, Ok)
        handle = find_handle(outcome.result.value)
        registry = _registry(second)
        page = await registry.execute(
            "read_result", {"handle": handle, "start": 1000, "length": 20}, context
        )
        other = await registry.execute("read_result", {"handle": handle}, ctx(session_id="x"))
    assert isinstance(page.result, Ok)
    assert page.result.value.split("\n", 1)[1].startswith(TEXT[1000:1020])
    assert isinstance(other.result, Err)
    assert other.result.reason == "handle_not_available"


async def test_a_burst_of_parallel_trims_keeps_the_session_under_its_cap(
    target: KvTarget,
) -> None:
    cap = len(TEXT) * 3
    async with target.make() as backend:
        registry = _registry(backend, ResultHandles(max_chars_per_session=cap))
        context = ctx(session_id="burst", result_budget_chars=1000 * 12)
        batch = [ToolCall(id=f"c{i}", name="big", args="{}") for i in range(12)]
        outcomes = await registry.execute_parallel(batch, context)  # 1,000 chars each
        handles = []
        for outcome in outcomes:
            assert isinstance(outcome.result, Ok)
            handles.append(find_handle(outcome.result.value))
        assert all(handles)
        readable = []
        for handle in handles:
            page = await registry.execute("read_result", {"handle": handle}, context)
            readable.append(isinstance(page.result, Ok))
        store = backend.scoped("read_result", "tool:read_result")
        index_keys = await store.list("i/")
        assert len(index_keys) == 1
        raw = await store.get(index_keys[0])
    assert raw is not None
    entries = json.loads(raw)["entries"]
    assert sum(size for _, size, _ in entries) <= cap
    assert sum(readable) == len(entries) == 3  # every admitted text, and only those
    assert sorted(h for h, ok in zip(handles, readable, strict=True) if ok) == sorted(
        h for h, _, _ in entries
    )
