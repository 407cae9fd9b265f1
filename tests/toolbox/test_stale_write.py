"""STALE_WRITE: writes over files that changed since they were read are refused."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from toolbox_helpers import GatedFs, error_of, ok_value, run, start_call

from toolwire.calls import ToolCall
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox._files import read_file
from toolwire.toolbox._stale import format_time

pytestmark = pytest.mark.anyio


def _bump(path: Path, seconds: float = 10.0) -> float:
    """Move the file's mtime forward, as an external editor saving it would."""
    stat = path.stat()
    new = stat.st_mtime + seconds
    os.utime(path, (stat.st_atime, new))
    return path.stat().st_mtime


async def _read(
    registry: ToolRegistry, ctx: ToolContext, work: Path, text: str, name: str = "f.txt"
) -> Path:
    """``work/name`` holding ``text``, read by the model (``read_file``)."""
    target = work / name
    target.write_text(text)
    await run(registry, ctx, "read_file", path=name)
    return target


def _stale(result: ToolResult) -> Err:
    """The ``STALE_WRITE`` error; fails the test on any other answer."""
    error = error_of(result)
    assert error.code is ErrorCode.STALE_WRITE, error
    return error


async def test_external_change_after_read_refuses_write_naming_both_times(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = await _read(registry, ctx, work, "original")
    read_mtime = target.stat().st_mtime
    changed_mtime = _bump(target)
    error = _stale(await run(registry, ctx, "write_file", path="f.txt", content="mine"))
    assert error.conflict_key == str(target)
    assert format_time(read_mtime) in error.error
    assert format_time(changed_mtime) in error.error
    assert target.read_text() == "original"


async def test_patch_is_refused_the_same_way(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = await _read(registry, ctx, work, "a = 1\n")
    _bump(target)
    _stale(await run(registry, ctx, "patch_file", path="f.txt", old_text="1", new_text="2"))
    assert target.read_text() == "a = 1\n"


async def test_deleted_after_read_is_stale(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = await _read(registry, ctx, work, "x")
    target.unlink()
    error = _stale(await run(registry, ctx, "write_file", path="f.txt", content="y"))
    assert "no longer exists" in error.error
    assert not target.exists()


async def test_write_right_after_read_succeeds(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    await _read(registry, ctx, work, "x")
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
    target = await _read(registry, ctx, work, "one\n")
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
    target = await _read(registry, ctx, work, "x")
    _bump(target)
    await run(registry, ctx, "read_file", path="f.txt")
    ok_value(await run(registry, ctx, "write_file", path="f.txt", content="y"))


async def test_checks_are_off_without_a_record_map(registry: ToolRegistry, work: Path) -> None:
    ctx = ToolContext(session_id="s", working_dir=str(work), read_mtimes=None)
    target = await _read(registry, ctx, work, "x")
    _bump(target)
    ok_value(await run(registry, ctx, "write_file", path="f.txt", content="y"))


async def test_two_patches_racing_in_one_batch_both_apply(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = await _read(registry, ctx, work, "a = 1\nb = 2\n", "f.py")
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
    target = await _read(registry, ctx, work, "original")
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


async def test_a_file_changing_during_the_read_is_not_recorded(work: Path) -> None:
    target = work / "f.txt"
    target.write_text("first\n")
    gated = GatedFs(work, target)
    ctx = ToolContext(session_id="s", working_dir=str(work), scoped_fs=gated)
    async with anyio.create_task_group() as group:
        results = start_call(group, read_file, {"path": "f.txt"}, ctx)
        await gated.entered.wait()
        target.write_text("written while being read\n")  # another program, no lock of ours
        _bump(target)
        gated.release.set()
    error = error_of(results[0])
    assert error.error == f"{target} changed while it was being read; read it again"
    assert ctx.read_mtimes == {}


# --- aliases: one file, several spellings (issue 9, item 12) -----------------------------------
# The record belongs to the file, not to the spelling the model used: a read through one name
# and a write through another must still meet the check.


def _alias(work: Path, kind: str) -> tuple[str, str, Path]:
    """A file and two names for it: (name read, name written, the file)."""
    (work / "real").mkdir()
    target = work / "real" / "f.txt"
    target.write_text("original\n")
    if kind == "symlink, read through the link":
        (work / "link.txt").symlink_to(target)
        return "link.txt", "real/f.txt", target
    if kind == "symlink, written through the link":
        (work / "link.txt").symlink_to(target)
        return "real/f.txt", "link.txt", target
    if kind == "linked directory":
        (work / "linkdir").symlink_to(work / "real")
        return "linkdir/f.txt", "real/f.txt", target
    if kind == "hard link":
        os.link(target, work / "hard.txt")
        return "real/f.txt", "hard.txt", target
    if kind == "hard link, written through the first name":
        os.link(target, work / "hard.txt")
        return "hard.txt", "real/f.txt", target
    assert kind == "dot segments"
    (work / "other").mkdir()
    return "other/../real/./f.txt", "real//f.txt", target


ALIASES = [
    "symlink, read through the link",
    "symlink, written through the link",
    "linked directory",
    "hard link",
    "hard link, written through the first name",
    "dot segments",
]


@pytest.mark.parametrize("kind", ALIASES)
async def test_a_change_after_a_read_through_an_alias_refuses_the_write(
    registry: ToolRegistry, ctx: ToolContext, work: Path, kind: str
) -> None:
    read_as, write_as, target = _alias(work, kind)
    ok_value(await run(registry, ctx, "read_file", path=read_as))
    target.write_text("changed by someone else\n")  # in place: the inode stays
    _bump(target)
    _stale(await run(registry, ctx, "write_file", path=write_as, content="mine\n"))
    assert target.read_text() == "changed by someone else\n"
    patch = await run(
        registry, ctx, "patch_file", path=write_as, old_text="changed", new_text="mine"
    )
    _stale(patch)


@pytest.mark.parametrize("kind", ALIASES)
async def test_an_unchanged_file_read_through_an_alias_is_writable(
    registry: ToolRegistry, ctx: ToolContext, work: Path, kind: str
) -> None:
    read_as, write_as, _ = _alias(work, kind)
    ok_value(await run(registry, ctx, "read_file", path=read_as))
    ok_value(await run(registry, ctx, "write_file", path=write_as, content="mine\n"))
    ok_value(await run(registry, ctx, "patch_file", path=write_as, old_text="mine", new_text="2"))
    assert (work / write_as).read_text() == "2\n"


async def test_a_file_replaced_by_another_program_after_a_read_is_stale(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("original\n")
    (work / "link.txt").symlink_to(target)
    await run(registry, ctx, "read_file", path="link.txt")
    replacement = work / "f.txt.new"  # an editor saving by rename: a new inode under the name
    replacement.write_text("saved elsewhere\n")
    os.utime(replacement, (1, 1))
    replacement.rename(target)
    _stale(await run(registry, ctx, "write_file", path="f.txt", content="mine\n"))
    assert target.read_text() == "saved elsewhere\n"
