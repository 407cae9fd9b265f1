"""read_file: headers, ranges, binary files, invalid UTF-8, reach, missing files, readers that
share a file, and what is not a regular file."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import anyio
import pytest
from toolbox_helpers import GatedFs, error_of, file_registry, ok_value, run, start_call

from fifo_helpers import no_reader_holds, rescued
from toolwire.capabilities.kinds.fs_reach._scoped import ReachScopedFs
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode
from toolwire.toolbox._common import MAX_TEXT_FILE_BYTES
from toolwire.toolbox._files import read_file, write_file

pytestmark = pytest.mark.anyio


async def test_whole_file_has_an_absolute_path_and_line_count_header(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    value = ok_value(await run(registry, ctx, "read_file", path="notes.txt"))
    assert value == f"# {work / 'notes.txt'} (3 lines)\nalpha\nbeta\ngamma"


async def test_range_is_one_based_and_inclusive(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    value = ok_value(await run(registry, ctx, "read_file", path="n.txt", start_line=3, end_line=5))
    assert value == f"# {work / 'n.txt'} (lines 3-5 of 10)\nline 3\nline 4\nline 5"


async def test_range_is_clamped_to_the_file(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "n.txt").write_text("a\nb\nc\n")
    value = ok_value(await run(registry, ctx, "read_file", path="n.txt", start_line=0, end_line=99))
    assert value.splitlines()[0].endswith("(lines 1-3 of 3)")
    assert value.splitlines()[1:] == ["a", "b", "c"]


async def test_start_past_the_end_is_an_input_error(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "n.txt").write_text("a\n")
    error = error_of(await run(registry, ctx, "read_file", path="n.txt", start_line=5))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.field == "start_line"


async def test_long_unranged_read_is_cut_by_the_read_file_reducer(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "big.txt").write_text("".join(f"{i}\n" for i in range(1, 401)))
    value = ok_value(await run(registry, ctx, "read_file", path="big.txt"))
    lines = value.splitlines()
    assert lines[0] == f"# {work / 'big.txt'} (400 lines)"
    assert "start_line=201" in lines[1]
    assert lines[-1] == "200"


async def test_binary_file_is_described_not_dumped(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "pixel.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    value = ok_value(await run(registry, ctx, "read_file", path="pixel.png"))
    assert (
        value == f"# {work / 'pixel.png'} (binary file: 108 bytes, PNG image; contents not shown)"
    )


async def test_invalid_utf8_is_replaced_and_said_so(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "latin.txt").write_bytes(b"caf\xe9\n")
    value = ok_value(await run(registry, ctx, "read_file", path="latin.txt"))
    lines = value.splitlines()
    assert "not valid UTF-8" in lines[1]
    assert lines[2] == "caf\ufffd"


async def test_missing_file_names_the_absolute_path(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    error = error_of(await run(registry, ctx, "read_file", path="nope.txt"))
    assert error.code is ErrorCode.EXECUTION_FAILED
    assert error.error == f"Cannot read {work / 'nope.txt'}: file not found"


async def test_path_outside_reach_is_refused_with_the_literal_prefix(
    registry: ToolRegistry, ctx: ToolContext, outside: Path
) -> None:
    (outside / "secret.txt").write_text("no")
    error = error_of(await run(registry, ctx, "read_file", path=str(outside / "secret.txt")))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert error.error.startswith("PATH_NOT_REACHABLE:")


async def test_dot_dot_traversal_out_of_reach_is_refused(
    registry: ToolRegistry, ctx: ToolContext, outside: Path
) -> None:
    (outside / "x.txt").write_text("no")
    error = error_of(await run(registry, ctx, "read_file", path="../outside/x.txt"))
    assert error.error.startswith("PATH_NOT_REACHABLE:")


async def test_read_is_recorded_for_stale_write_checks(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    target = work / "f.txt"
    target.write_text("x")
    await run(registry, ctx, "read_file", path="f.txt")
    assert ctx.read_mtimes is not None
    record = ctx.read_mtimes[str(target)]
    assert record.mtime == target.stat().st_mtime
    assert record.read_at_turn == ctx.current_turn


async def test_result_is_marked_untrusted_and_capped_at_40000(registry: ToolRegistry) -> None:
    tool = registry.get("read_file")
    assert tool is not None
    assert tool.output_is_untrusted
    assert tool.max_result_chars == 40_000
    assert tool.toolset == "file"


def test_text_starting_with_a_printable_signature_is_still_text() -> None:
    from toolwire.toolbox._filetypes import is_binary

    assert not is_binary(b"MZ is the prefix of this note\n")
    assert not is_binary(b"ID3 tags explained\n")
    assert is_binary(b"\x7fELF\x02\x01\x01")
    assert is_binary(b"%PDF-1.7\n")


@pytest.mark.parametrize("tool_name", ["read_file", "patch_file"])
async def test_a_file_over_the_size_limit_is_refused_before_it_is_read(
    registry: ToolRegistry, ctx: ToolContext, work: Path, tool_name: str
) -> None:
    huge = work / "huge.log"
    with huge.open("wb") as handle:  # sparse: no 64 MiB actually written
        handle.truncate(MAX_TEXT_FILE_BYTES + 1)
    args = {"path": "huge.log"}
    if tool_name == "patch_file":
        args.update(old_text="a", new_text="b")
    error = error_of(await run(registry, ctx, tool_name, **args))
    assert error.code == ErrorCode.EXECUTION_FAILED
    assert error.cause == "file_too_large"
    assert f"{MAX_TEXT_FILE_BYTES + 1:,} bytes" in error.error
    assert "terminal" in error.error


# --- many readers of one file (issue 9, item 5) ------------------------------------------------


async def test_a_reader_blocked_inside_a_read_does_not_block_another_reader_of_the_file(
    work: Path,
) -> None:
    target = work / "shared.txt"
    target.write_text("shared\n")
    gated = GatedFs(work, target)
    blocked = ToolContext(session_id="a", working_dir=str(work), scoped_fs=gated)
    free = ToolContext(
        session_id="b", working_dir=str(work), scoped_fs=ReachScopedFs([str(work)], [])
    )
    async with anyio.create_task_group() as group:
        results = start_call(group, read_file, {"path": "shared.txt"}, blocked)
        await gated.entered.wait()
        try:
            with anyio.fail_after(10):
                second = await read_file.execute({"path": "shared.txt"}, free)
        finally:
            gated.release.set()
    assert ok_value(second).endswith("\nshared")
    assert ok_value(results[0]).endswith("\nshared")


async def test_a_write_waits_for_a_read_of_the_file_to_finish(work: Path) -> None:
    target = work / "f.txt"
    target.write_text("before\n")
    gated = GatedFs(work, target)
    ctx = ToolContext(session_id="s", working_dir=str(work), scoped_fs=gated)
    async with anyio.create_task_group() as group:
        read = start_call(group, read_file, {"path": "f.txt"}, ctx)
        await gated.entered.wait()
        written = start_call(group, write_file, {"path": "f.txt", "content": "after\n"}, ctx)
        await anyio.wait_all_tasks_blocked()
        assert target.read_text() == "before\n"  # the write waits for the read and its record
        gated.gated.clear()
        gated.release.set()
    assert ok_value(read[0]).endswith("\nbefore")
    assert ok_value(written[0]).startswith("Overwrote")
    assert target.read_text() == "after\n"


# --- only regular files (item 10) --------------------------------------------------------------


async def test_a_fifo_is_refused_at_once_and_no_reader_is_left_on_it(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    fifo = work / "pipe"
    os.mkfifo(fifo)
    with rescued(fifo):
        with anyio.fail_after(10):
            error = error_of(await run(registry, ctx, "read_file", path="pipe"))
        assert no_reader_holds(fifo)
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.error == (
        f"Cannot read {fifo}: it is a named pipe (FIFO), not a regular file; "
        "read_file reads regular files only"
    )
    assert ctx.read_mtimes == {}


async def test_a_socket_is_refused_saying_what_it_is(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    path = work / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        with anyio.fail_after(10):
            error = error_of(await run(registry, ctx, "read_file", path="s.sock"))
    assert error.code is ErrorCode.INPUT_INVALID
    assert "it is a socket, not a regular file" in error.error


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
async def test_a_character_device_is_refused_saying_what_it_is(
    work: Path, ctx: ToolContext, device: str
) -> None:
    registry = file_registry([str(work), device])
    with anyio.fail_after(10):
        error = error_of(await run(registry, ctx, "read_file", path=device))
    assert error.code is ErrorCode.INPUT_INVALID
    assert f"Cannot read {device}: it is a character device, not a regular file" in error.error


async def test_a_directory_is_refused_saying_what_it_is(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "d").mkdir()
    error = error_of(await run(registry, ctx, "read_file", path="d"))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.error.startswith(f"Cannot read {work / 'd'}: it is a directory")


# --- paths (items 11 and 13) -------------------------------------------------------------------


async def test_a_nul_byte_in_the_path_is_refused_before_normalisation_can_drop_it(
    registry: ToolRegistry, ctx: ToolContext, work: Path
) -> None:
    (work / "f.txt").write_text("x")
    error = error_of(await run(registry, ctx, "read_file", path="sub/\0/../../f.txt"))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.field == "path"
    assert "NUL" in error.error


async def test_a_link_to_toolwire_secrets_is_refused_for_reading(
    registry: ToolRegistry, ctx: ToolContext, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = work / "home"
    (home / ".toolwire" / "secrets").mkdir(parents=True)
    (home / ".toolwire" / "secrets" / "api").write_text("sk-secret")
    monkeypatch.setenv("HOME", str(home))
    (work / "vault").symlink_to(home / ".toolwire" / "secrets")
    (work / "key").symlink_to(home / ".toolwire" / "secrets" / "api")
    for path in ("vault/api", "key", "home/.Toolwire/secrets/api"):
        error = error_of(await run(registry, ctx, "read_file", path=path))
        assert error.code is ErrorCode.NOT_AVAILABLE, path
        assert "sk-secret" not in error.error
