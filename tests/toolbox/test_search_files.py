"""search_files: substring hits, skipped folders and files (what is not a regular file counted),
probes, glob, limits, reach."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import anyio
import pytest
from toolbox_helpers import error_of, file_registry, ok_value, run

from fifo_helpers import no_reader_holds, rescued
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.toolbox._search import MAX_FILE_BYTES

pytestmark = pytest.mark.anyio


def _tree(work: Path) -> None:
    (work / "src").mkdir()
    (work / "src/app.py").write_text("import os\n\ndef handler():\n    return 'TODO: fix'\n")
    (work / "README.md").write_text("Project notes. TODO: docs\n")


async def test_exact_hits_name_file_and_line(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    _tree(work)
    value = ok_value(await run(registry, ctx, "search_files", pattern="TODO:"))
    lines = value.splitlines()
    assert lines[0] == f'2 matches for "TODO:" under {work}:'
    assert set(lines[2:]) == {
        "README.md:1: Project notes. TODO: docs",
        "src/app.py:4: return 'TODO: fix'",
    }


async def test_pattern_is_a_substring_not_a_regex(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "a.txt").write_text("a.b\naxb\n")
    value = ok_value(await run(registry, ctx, "search_files", pattern="a.b"))
    assert value.splitlines()[2:] == ["a.txt:1: a.b"]


async def test_vcs_dependency_and_build_folders_are_skipped(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    for folder in (".git", "node_modules/pkg", "dist", "__pycache__", ".venv/lib"):
        (work / folder).mkdir(parents=True)
        (work / folder / "f.txt").write_text("needle\n")
    (work / "kept.txt").write_text("needle\n")
    value = ok_value(await run(registry, ctx, "search_files", pattern="needle"))
    assert value.splitlines()[2:] == ["kept.txt:1: needle"]


async def test_binary_and_oversized_files_are_skipped(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "blob.bin").write_bytes(b"needle\x00\x01")
    (work / "huge.txt").write_text("needle\n" + "x" * MAX_FILE_BYTES)
    (work / "small.txt").write_text("needle\n")
    value = ok_value(await run(registry, ctx, "search_files", pattern="needle"))
    assert value.splitlines()[2:] == ["small.txt:1: needle"]


async def test_case_insensitive_probe_is_labelled(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "a.txt").write_text("Hello World\n")
    value = ok_value(await run(registry, ctx, "search_files", pattern="hello world"))
    assert value.startswith('No exact match for "hello world"; a case-insensitive search found 1')
    assert value.endswith("a.txt:1: Hello World")


async def test_whitespace_collapsed_probe_is_labelled(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "a.py").write_text("x  =\t1\n")
    value = ok_value(await run(registry, ctx, "search_files", pattern="x = 1"))
    assert "a whitespace-collapsed search found 1 match" in value


async def test_no_match_says_how_many_files_were_searched(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    _tree(work)
    value = ok_value(await run(registry, ctx, "search_files", pattern="absent"))
    assert value == f'No matches for "absent" in 2 files under {work}.'


async def test_glob_filters_by_file_name(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    _tree(work)
    value = ok_value(await run(registry, ctx, "search_files", pattern="TODO", glob="*.py"))
    assert value.splitlines()[2:] == ["src/app.py:4: return 'TODO: fix'"]


async def test_max_results_limits_and_says_so(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "a.txt").write_text("hit\n" * 10)
    value = ok_value(await run(registry, ctx, "search_files", pattern="hit", max_results=3))
    assert value.splitlines()[0].startswith("3 matches")
    assert "the limit" in value.splitlines()[0]
    assert len(value.splitlines()[2:]) == 3


async def test_a_file_path_searches_that_file(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    _tree(work)
    value = ok_value(await run(registry, ctx, "search_files", pattern="TODO", path="README.md"))
    assert value.splitlines()[2:] == ["README.md:1: Project notes. TODO: docs"]


async def test_symlink_loop_does_not_trap_the_walk(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "d").mkdir()
    (work / "d/loop").symlink_to(work / "d")
    (work / "d/f.txt").write_text("needle\n")
    value = ok_value(await run(registry, ctx, "search_files", pattern="needle"))
    assert value.splitlines()[2:] == ["d/f.txt:1: needle"]


async def test_links_out_of_reach_are_not_followed(
    registry: ToolRegistry, ctx: ToolContext, work: Path, outside: Path
) -> None:
    (outside / "secret.txt").write_text("needle\n")
    (work / "escape.txt").symlink_to(outside / "secret.txt")
    value = ok_value(await run(registry, ctx, "search_files", pattern="needle"))
    assert value.startswith("No matches")


async def test_root_out_of_reach_is_refused(
    registry: ToolRegistry, ctx: ToolContext, outside: Path
) -> None:
    error = error_of(await run(registry, ctx, "search_files", pattern="x", path=str(outside)))
    assert error.error.startswith("PATH_NOT_REACHABLE:")


# --- what is not a regular file (issue 9, item 10) ---------------------------------------------


async def test_fifos_sockets_and_devices_are_skipped_and_counted(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "f.txt").write_text("needle\n")
    fifo = work / "pipe"
    os.mkfifo(fifo)
    (work / "sub").mkdir()
    os.mkfifo(work / "sub" / "pipe2")
    with socket.socket(socket.AF_UNIX) as server, rescued(fifo), rescued(work / "sub" / "pipe2"):
        server.bind(str(work / "s.sock"))
        with anyio.fail_after(10):
            value = ok_value(await run(registry, ctx, "search_files", pattern="needle"))
        assert no_reader_holds(fifo)
        assert no_reader_holds(work / "sub" / "pipe2")
    assert value.splitlines()[2] == "f.txt:1: needle"
    assert value.splitlines()[-1] == (
        "Skipped 3 entries that are not regular files: 2 named pipes (FIFO), 1 socket."
    )


async def test_a_fifo_given_as_the_path_is_skipped_and_said_so(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    fifo = work / "pipe"
    os.mkfifo(fifo)
    with rescued(fifo):
        with anyio.fail_after(10):
            value = ok_value(await run(registry, ctx, "search_files", pattern="x", path="pipe"))
        assert no_reader_holds(fifo)
    assert value == (
        f'No matches for "x" in 0 files under {fifo}. '
        "Skipped 1 entry that is not a regular file: 1 named pipe (FIFO)."
    )


async def test_a_device_linked_in_reach_is_skipped(ctx: ToolContext, work: Path) -> None:
    registry = file_registry([str(work), "/dev/zero"])
    (work / "zeros").symlink_to("/dev/zero")
    with anyio.fail_after(10):
        value = ok_value(await run(registry, ctx, "search_files", pattern="x"))
    assert value.endswith("Skipped 1 entry that is not a regular file: 1 character device.")
