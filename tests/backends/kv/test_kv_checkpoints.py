"""Every store operation is a checkpoint: a task polling a store never starves the others.

Before, a memory operation and an inline SQLite read completed without ever yielding to the
event loop, so a tool polling the store held the loop: other tasks, and the tool's own
timeout, never got to run (a 0.2 s tool ran for seconds).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from kv_targets import KINDS, STORE_OPERATIONS, open_target, parametrize_targets

from toolwire.calls import ToolCall
from toolwire.capabilities import storage
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.stores import KeyValueBackend
from toolwire.tools import define_tool

pytestmark = pytest.mark.anyio

MAX_POLLS = 10_000
"""A poller that never yields runs this many operations before the other task gets a turn."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_targets(metafunc, {"backend": KINDS})


@pytest.fixture
async def backend(kind: str, tmp_path: Path) -> AsyncIterator[KeyValueBackend]:
    async with open_target(kind, tmp_path) as target, target.make() as opened:
        yield opened


@pytest.mark.parametrize("operation", STORE_OPERATIONS)
async def test_a_task_polling_the_store_lets_another_task_run(
    backend: KeyValueBackend, operation: str
) -> None:
    store = backend.scoped("poller", "session:s1")
    await store.set("k", "v")
    await STORE_OPERATIONS[operation](
        store
    )  # a first operation may yield (SQLite opens its reader)
    polling, other_ran = anyio.Event(), anyio.Event()
    polls = 0

    async def poll() -> None:
        nonlocal polls
        polling.set()
        while not other_ran.is_set() and polls < MAX_POLLS:
            await STORE_OPERATIONS[operation](store)
            polls += 1

    async def other() -> None:
        await polling.wait()  # whichever task the loop starts first
        other_ran.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(poll)
        tg.start_soon(other)
    assert polls < MAX_POLLS, "the poller never let the other task run"


async def test_a_tool_polling_the_store_is_answered_timed_out(backend: KeyValueBackend) -> None:
    async def poll_for_five_seconds(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        assert ctx.kv_store is not None
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if await ctx.kv_store.get("done") is not None:
                break
        return Ok("polled for 5 s: the 0.2 s timeout never fired")

    registry = ToolRegistry(
        reducers=None, backends=CapabilityBackends(kv_store_factory=backend.scoped)
    )
    registry.register(
        define_tool(
            name="poller",
            description="Polls the store until told to stop.",
            schema={"type": "object"},
            execute=poll_for_five_seconds,
            capabilities=[storage("session")],
            timeout_s=0.2,
        )
    )
    with anyio.fail_after(10):
        (outcome,) = await registry.execute_parallel(
            [ToolCall(id="c0", name="poller", args="{}")], ToolContext(session_id="s1")
        )
    assert outcome.result == Err(
        "Tool poller timed out after 0.2 s", ErrorCode.EXECUTION_FAILED, cause="timeout"
    )
