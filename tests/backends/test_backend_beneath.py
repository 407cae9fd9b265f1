"""The descriptor walk (`walk_beneath`) and the operations at its end, with the race's moves
made by hand between the walk and the use: what was walked is what is used, or the call fails.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from toolwire.capabilities.kinds.fs_reach._file_operations import (
    list_at,
    remove_in,
    size_at,
    write_at,
)
from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs
from toolwire.capabilities.kinds.fs_reach.beneath import Located, walk_beneath
from toolwire.capabilities.kinds.fs_reach.regular_files import read_regular_file, stat_path
from toolwire.errors import PathNotReachableError

pytestmark = pytest.mark.anyio


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """``root/d/file.txt`` in reach, ``outside/file.txt`` beside it."""
    (tmp_path / "root" / "d").mkdir(parents=True)
    (tmp_path / "root" / "d" / "file.txt").write_text("inside")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "file.txt").write_text("OUTSIDE")
    return tmp_path / "root"


def walk(root: Path, relative: str, *, create: bool = False) -> Located:
    located = walk_beneath(
        str(root / relative), str(root), asked=relative, kind="read", create=create
    )
    assert isinstance(located, Located)
    return located


def swap_for_link(directory: Path, target: Path) -> Path:
    """Move ``directory`` aside (inside its parent) and put a link to ``target`` in its place."""
    aside = directory.with_name(directory.name + ".aside")
    directory.rename(aside)
    directory.symlink_to(target)
    return aside


def test_a_directory_swapped_for_a_link_after_the_walk_is_not_followed(root: Path) -> None:
    with walk(root, "d/file.txt") as located:
        swap_for_link(root / "d", root.parent / "outside")
        assert read_regular_file(located, "d/file.txt") == b"inside"


def test_a_write_after_the_swap_lands_in_the_walked_directory(root: Path) -> None:
    with walk(root, "d/new.txt", create=True) as located:
        aside = swap_for_link(root / "d", root.parent / "outside")
        write_at(located, b"new")
    assert (aside / "new.txt").read_bytes() == b"new"
    assert sorted(os.listdir(root.parent / "outside")) == ["file.txt"]  # no temporary file


def test_a_directory_moved_out_of_the_prefix_after_the_walk_is_refused(root: Path) -> None:
    with walk(root, "d/file.txt") as located:
        (root / "d").rename(root.parent / "moved")
        with pytest.raises(PathNotReachableError, match="moved outside the allowlist"):
            read_regular_file(located, "d/file.txt")
        with pytest.raises(PathNotReachableError, match="moved outside the allowlist"):
            stat_path(located)
        with pytest.raises(PathNotReachableError, match="moved outside the allowlist"):
            write_at(located, b"x")
    assert (root.parent / "moved" / "file.txt").read_text() == "inside"


def test_a_last_segment_turned_into_a_link_after_the_walk_is_refused(root: Path) -> None:
    with walk(root, "d/file.txt") as located:
        (root / "d" / "file.txt").unlink()
        (root / "d" / "file.txt").symlink_to(root.parent / "outside" / "file.txt")
        with pytest.raises(PathNotReachableError, match="became a symbolic link"):
            read_regular_file(located, "d/file.txt")
        assert size_at(located) != len("OUTSIDE")  # the link's own size, not its target's
    with walk(root, "d") as located:
        swap_for_link(root / "d", root.parent / "outside")
        with pytest.raises(PathNotReachableError, match="became a symbolic link"):
            list_at(located)


def test_remove_never_removes_a_directory_swapped_in_after_the_look(root: Path) -> None:
    with walk(root, "d") as parent:
        (root / "d" / "file.txt").unlink()
        (root / "d" / "file.txt").mkdir()
        with pytest.raises(IsADirectoryError):
            remove_in(parent, "file.txt")
    assert (root / "d" / "file.txt").is_dir()


def test_a_link_found_by_the_walk_is_handed_back_to_be_checked_again(root: Path) -> None:
    (root / "link").symlink_to("d")
    step = walk_beneath(
        str(root / "link" / "file.txt"), str(root), asked="x", kind="read", create=False
    )
    assert step == str(root / "d" / "file.txt")


async def test_no_descriptor_is_left_open(root: Path) -> None:
    fs = ReachScopedFs([str(root)], [str(root)])
    (root / "link").symlink_to(root.parent / "outside")

    async def every_operation() -> None:
        for path in ("d/file.txt", "d/missing/x", "d/file.txt/x", "link/file.txt", "d"):
            target = str(root / path)
            for call in (fs.read_bytes, fs.exists, fs.list_entries, fs.mtime, fs.size, fs.stat):
                with contextlib.suppress(OSError):  # PathNotReachableError is one
                    await call(target)
        await fs.write(str(root / "d" / "sub" / "w.txt"), "w")
        await fs.mkdir(str(root / "d" / "made"))
        await fs.remove(str(root / "d" / "sub" / "w.txt"))

    await every_operation()  # the worker threads and their descriptors exist from here on
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        await every_operation()
    assert len(os.listdir("/proc/self/fd")) == before
