"""write_file: creation, parents, atomic overwrite, read-back verification, protected paths
(through links too), write-only reach and NUL bytes."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from toolbox_helpers import error_of, file_registry, ok_value, run

from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode
from toolwire.toolbox._files import write_file

pytestmark = pytest.mark.anyio


async def test_creates_the_file_and_its_parents(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    value = ok_value(await run(registry, ctx, "write_file", path="a/b/c.txt", content="héllo\n"))
    assert (work / "a/b/c.txt").read_text() == "héllo\n"
    assert value == f"Created {work / 'a/b/c.txt'} (6 characters, 7 bytes)"


async def test_overwrites_an_existing_file_and_keeps_no_temporary_files(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "f.txt").write_text("old")
    value = ok_value(await run(registry, ctx, "write_file", path="f.txt", content="new"))
    assert value.startswith("Overwrote")
    assert (work / "f.txt").read_text() == "new"
    assert sorted(os.listdir(work)) == ["f.txt"]


async def test_empty_content_is_allowed(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    ok_value(await run(registry, ctx, "write_file", path="empty.txt", content=""))
    assert (work / "empty.txt").read_bytes() == b""


async def test_refuses_the_sensitive_floor_before_touching_the_disk(
    registry: ToolRegistry, ctx: ToolContext, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(work))
    error = error_of(
        await run(registry, ctx, "write_file", path=str(work / ".ssh/authorized_keys"), content="k")
    )
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert "sensitive-path floor" in error.error
    assert not (work / ".ssh").exists()


async def test_refuses_toolwire_state_files(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    error = error_of(await run(registry, ctx, "write_file", path=".toolwire/state.db", content="x"))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert "toolwire's own state" in error.error
    assert not (work / ".toolwire").exists()


async def test_out_of_reach_write_is_refused_and_nothing_is_written(
    registry: ToolRegistry, ctx: ToolContext, outside: Path
) -> None:
    error = error_of(
        await run(registry, ctx, "write_file", path=str(outside / "x.txt"), content="x")
    )
    assert error.error.startswith("PATH_NOT_REACHABLE:")
    assert not (outside / "x.txt").exists()


async def test_symlink_escaping_reach_is_refused(
    registry: ToolRegistry, ctx: ToolContext, work: Path, outside: Path
) -> None:
    (work / "link").symlink_to(outside)
    error = error_of(await run(registry, ctx, "write_file", path="link/x.txt", content="x"))
    assert error.error.startswith("PATH_NOT_REACHABLE:")
    assert not (outside / "x.txt").exists()


class _DroppingFs(ReachScopedFs):
    """A real file system whose writes are silently lost (a failing disk)."""

    async def write(self, path: str, data: str | bytes) -> None:
        self.check_reach(path, "write")


async def test_read_back_catches_a_silently_dropped_write(work: Path) -> None:
    fs = _DroppingFs([str(work)], [str(work)])
    ctx = ToolContext(session_id="s", working_dir=str(work), scoped_fs=fs)
    result = await write_file.execute({"path": "f.txt", "content": "data"}, ctx)
    error = error_of(result)
    assert error.error.startswith(f"Write verification failed for {work / 'f.txt'}: wrote 4 bytes")
    assert "nothing (the file is missing)" in error.error


# --- toolwire's own state through a link (issue 9, item 11) ------------------------------------


def _state(work: Path) -> Path:
    """A working directory's state dir with a store in it, as create_backends makes it."""
    state = work / ".toolwire"
    state.mkdir()
    (state / "state.db").write_bytes(b"SQLite format 3\0")
    return state


@pytest.mark.parametrize("tool_name", ["write_file", "patch_file"])
@pytest.mark.parametrize(("link", "points_to", "path"), [
    ("data", "", "data/state.db"),  # a linked directory
    ("notes.db", "state.db", "notes.db"),  # a linked file
])  # fmt: skip
async def test_a_link_into_the_state_dir_is_refused(
    registry: ToolRegistry,
    ctx: ToolContext,
    work: Path,
    tool_name: str,
    link: str,
    points_to: str,
    path: str,
) -> None:
    state = _state(work)
    (work / link).symlink_to(state / points_to if points_to else state)
    edit = {"content": "x"} if tool_name == "write_file" else {"old_text": "SQL", "new_text": "x"}
    error = error_of(await run(registry, ctx, tool_name, path=path, **edit))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert "toolwire's own state" in error.error
    assert (state / "state.db").read_bytes() == b"SQLite format 3\0"


async def test_a_new_file_through_a_linked_state_dir_is_refused(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    state = _state(work)
    (work / "data").symlink_to(state)
    error = error_of(await run(registry, ctx, "write_file", path="data/new.txt", content="x"))
    assert "toolwire's own state" in error.error
    assert not (state / "new.txt").exists()


async def test_the_state_dir_spelled_in_other_letter_cases_is_refused(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    error = error_of(await run(registry, ctx, "write_file", path=".TOOLWIRE/state.db", content="x"))
    assert "toolwire's own state" in error.error
    assert not (work / ".TOOLWIRE").exists()


# --- write-only reach and NUL bytes (item 13) --------------------------------------------------


async def test_write_only_reach_creates_and_overwrites_a_file(work: Path, ctx: ToolContext) -> None:
    registry = file_registry([], [str(work)])
    value = ok_value(await run(registry, ctx, "write_file", path="w.txt", content="one"))
    assert value.startswith(f"Created {work / 'w.txt'}")
    value = ok_value(await run(registry, ctx, "write_file", path="w.txt", content="two"))
    assert value.startswith(f"Overwrote {work / 'w.txt'}")
    assert (work / "w.txt").read_text() == "two"
    refused = error_of(await run(registry, ctx, "read_file", path="w.txt"))
    assert refused.error.startswith("PATH_NOT_REACHABLE: read of")


async def test_write_only_reach_still_catches_a_silently_dropped_write(work: Path) -> None:
    fs = _DroppingFs([], [str(work)])
    ctx = ToolContext(session_id="s", working_dir=str(work), scoped_fs=fs)
    error = error_of(await write_file.execute({"path": "f.txt", "content": "data"}, ctx))
    assert error.error.startswith(f"Write verification failed for {work / 'f.txt'}: wrote 4 bytes")


@pytest.mark.parametrize("path", ["sub/\0/../f.txt", "f.txt\0", "\0"])
async def test_a_nul_byte_in_the_path_is_refused_and_nothing_is_written(
    registry: ToolRegistry, ctx: ToolContext, work: Path, path: str
) -> None:
    error = error_of(await run(registry, ctx, "write_file", path=path, content="x"))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.field == "path"
    assert "NUL" in error.error
    assert [entry async for entry in anyio.Path(work).iterdir()] == []
