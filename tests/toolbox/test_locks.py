"""PathLocks: readers share a path, a writer has it alone (issue 9, item 5).

Every ordering here is proven with events and `anyio.wait_all_tasks_blocked`, never with time.
"""

from __future__ import annotations

from typing import Literal

import anyio
import pytest
from anyio.abc import TaskGroup

from toolwire.toolbox._locks import PathLocks

pytestmark = pytest.mark.anyio


class Holder:
    """A task that takes a lock, says it is inside, and stays until told to leave."""

    def __init__(self, locks: PathLocks, mode: Literal["reading", "writing"], path: str) -> None:
        self.hold = locks.reading if mode == "reading" else locks.writing
        self.path = path
        self.inside = anyio.Event()
        self.leave = anyio.Event()

    async def run(self) -> None:
        async with self.hold(self.path):
            self.inside.set()
            await self.leave.wait()

    async def entered(self) -> None:
        """Wait (boundedly) until it is inside."""
        with anyio.fail_after(10):
            await self.inside.wait()


async def start(
    group: TaskGroup, locks: PathLocks, mode: Literal["reading", "writing"], path: str = "/f"
) -> Holder:
    """Start a holder and let every task run until it blocks (inside, or waiting its turn)."""
    holder = Holder(locks, mode, path)
    group.start_soon(holder.run)
    await anyio.wait_all_tasks_blocked()
    return holder


async def hand_over(inside: Holder, waiting: Holder) -> None:
    """``waiting`` is kept out until ``inside`` leaves; then it gets in."""
    assert not waiting.inside.is_set()
    inside.leave.set()
    await waiting.entered()


async def test_a_reader_inside_does_not_block_another_reader_of_the_path() -> None:
    locks = PathLocks()
    async with anyio.create_task_group() as group:
        first = await start(group, locks, "reading")
        second = await start(group, locks, "reading")
        assert first.inside.is_set()
        assert second.inside.is_set()
        first.leave.set()
        second.leave.set()
    assert len(locks) == 0


async def test_a_writer_waits_for_the_readers_inside() -> None:
    locks = PathLocks()
    async with anyio.create_task_group() as group:
        reader = await start(group, locks, "reading")
        writer = await start(group, locks, "writing")
        assert reader.inside.is_set()
        await hand_over(reader, writer)
        writer.leave.set()
    assert len(locks) == 0


async def test_readers_wait_for_the_writer_inside() -> None:
    locks = PathLocks()
    async with anyio.create_task_group() as group:
        writer = await start(group, locks, "writing")
        reader = await start(group, locks, "reading")
        await hand_over(writer, reader)
        reader.leave.set()


async def test_writers_take_turns() -> None:
    locks = PathLocks()
    async with anyio.create_task_group() as group:
        first = await start(group, locks, "writing")
        second = await start(group, locks, "writing")
        await hand_over(first, second)
        second.leave.set()


async def test_a_waiting_writer_goes_before_readers_that_come_after_it() -> None:
    locks = PathLocks()
    async with anyio.create_task_group() as group:
        reader = await start(group, locks, "reading")
        writer = await start(group, locks, "writing")
        late = await start(group, locks, "reading")
        assert not late.inside.is_set()  # a stream of readers cannot starve the writer
        await hand_over(reader, writer)
        await hand_over(writer, late)
        late.leave.set()


async def test_other_paths_are_independent() -> None:
    locks = PathLocks()
    async with anyio.create_task_group() as group:
        writer = await start(group, locks, "writing", "/a")
        other_writer = await start(group, locks, "writing", "/b")
        assert other_writer.inside.is_set()
        other_writer.leave.set()
        reader = await start(group, locks, "reading", "/b")
        assert reader.inside.is_set()
        reader.leave.set()
        writer.leave.set()


async def test_a_writer_cancelled_while_waiting_lets_the_readers_behind_it_in() -> None:
    locks = PathLocks()
    async with anyio.create_task_group() as group:
        reader = await start(group, locks, "reading")
        async with anyio.create_task_group() as writers:
            writer = await start(writers, locks, "writing")
            late = await start(group, locks, "reading")
            assert not late.inside.is_set()
            writers.cancel_scope.cancel()
        await late.entered()
        assert not writer.inside.is_set()
        reader.leave.set()
        late.leave.set()
    assert len(locks) == 0
