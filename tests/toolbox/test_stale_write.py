"""STALE_WRITE: writes over files that changed since they were read are refused."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from toolbox_helpers import error_of, ok_value, run

from toolwire.calls import ToolCall
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.toolbox.stale import format_time

pytestmark = pytest.mark.anyio


def _bump(path: Path, seconds: float = 10.0) -> float:
    """Move the file's mtime forward, as an external editor saving it would."""
    stat = path.stat()
    new = stat.st_mtime + seconds
    os.utime(path, (stat.st_atime, new))
    return path.stat().st_mtime


async def test_external_change_after_read_refuses_write_naming_both_times(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("original")
    await run(registry, ctx, "read_file", path="f.txt")
    read_mtime = target.stat().st_mtime
    changed_mtime = _bump(target)
    error = error_of(await run(registry, ctx, "write_file", path="f.txt", content="mine"))
    assert error.code is ErrorCode.STALE_WRITE
    assert error.conflict_key == str(target)
    assert format_time(read_mtime) in error.error
    assert format_time(changed_mtime) in error.error
    assert target.read_text() == "original"


async def test_patch_is_refused_the_same_way(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("a = 1\n")
    await run(registry, ctx, "read_file", path="f.txt")
    _bump(target)
    error = error_of(
        await run(registry, ctx, "patch_file", path="f.txt", old_text="1", new_text="2")
    )
    assert error.code is ErrorCode.STALE_WRITE
    assert target.read_text() == "a = 1\n"


async def test_deleted_after_read_is_stale(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("x")
    await run(registry, ctx, "read_file", path="f.txt")
    target.unlink()
    error = error_of(await run(registry, ctx, "write_file", path="f.txt", content="y"))
    assert error.code is ErrorCode.STALE_WRITE
    assert "no longer exists" in error.error
    assert not target.exists()


async def test_write_right_after_read_succeeds(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "f.txt").write_text("x")
    await run(registry, ctx, "read_file", path="f.txt")
    ok_value(await run(registry, ctx, "write_file", path="f.txt", content="y"))


async def test_never_read_file_is_writable_even_if_it_changes(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("x")
    _bump(target)
    ok_value(await run(registry, ctx, "write_file", path="f.txt", content="y"))


async def test_own_write_refreshes_the_record_so_the_next_edit_goes_through(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("one\n")
    await run(registry, ctx, "read_file", path="f.txt")
    os.utime(target, (1, 1))  # the tool's own write must not be judged against this old time
    await run(registry, ctx, "read_file", path="f.txt")
    ok_value(await run(registry, ctx, "write_file", path="f.txt", content="two\n"))
    assert ctx.read_mtimes is not None
    assert ctx.read_mtimes[str(target)].mtime == target.stat().st_mtime
    ok_value(await run(registry, ctx, "patch_file", path="f.txt", old_text="two", new_text="3"))
    assert target.read_text() == "3\n"


async def test_re_reading_clears_the_conflict(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("x")
    await run(registry, ctx, "read_file", path="f.txt")
    _bump(target)
    await run(registry, ctx, "read_file", path="f.txt")
    ok_value(await run(registry, ctx, "write_file", path="f.txt", content="y"))


async def test_checks_are_off_without_a_record_map(registry: ToolRegistry, work: Path) -> None:
    ctx = ToolContext(session_id="s", working_dir=str(work), read_mtimes=None)
    target = work / "f.txt"
    target.write_text("x")
    await run(registry, ctx, "read_file", path="f.txt")
    _bump(target)
    ok_value(await run(registry, ctx, "write_file", path="f.txt", content="y"))


async def test_two_patches_racing_in_one_batch_both_apply(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.py"
    target.write_text("a = 1\nb = 2\n")
    await run(registry, ctx, "read_file", path="f.py")
    outcomes = await registry.execute_parallel(
        [
            ToolCall(
                id="1",
                name="patch_file",
                args={"path": "f.py", "old_text": "a = 1", "new_text": "a = 10"},
            ),
            ToolCall(
                id="2",
                name="patch_file",
                args={"path": "f.py", "old_text": "b = 2", "new_text": "b = 20"},
            ),
        ],
        ctx,
    )
    assert all(isinstance(o.result, Ok) for o in outcomes), outcomes
    assert target.read_text() == "a = 10\nb = 20\n"


async def test_external_change_refuses_every_write_of_a_racing_batch(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("original")
    await run(registry, ctx, "read_file", path="f.txt")
    _bump(target)
    outcomes = await registry.execute_parallel(
        [
            ToolCall(id="1", name="write_file", args={"path": "f.txt", "content": "one"}),
            ToolCall(
                id="2",
                name="patch_file",
                args={"path": "f.txt", "old_text": "original", "new_text": "two"},
            ),
        ],
        ctx,
    )
    codes = [getattr(o.result, "code", None) for o in outcomes]
    assert codes == [ErrorCode.STALE_WRITE, ErrorCode.STALE_WRITE]
    assert target.read_text() == "original"


async def test_a_file_changing_during_the_read_is_not_recorded(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    fifo = work / "pipe"
    os.mkfifo(fifo)
    os.utime(fifo, (1, 1))

    def writer() -> None:
        time.sleep(0.1)
        with open(fifo, "wb") as handle:  # the read is blocked opening the pipe until now
            handle.write(b"written while being read\n")

    thread = threading.Thread(target=writer)
    thread.start()
    result = await run(registry, ctx, "read_file", path="pipe")
    thread.join()
    error = error_of(result)
    assert error.error == f"{fifo} changed while it was being read; read it again"
    assert ctx.read_mtimes == {}
