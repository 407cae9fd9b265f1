"""``read_file`` and ``write_file`` (toolset ``file``).

Both resolve paths against ``ctx.working_dir`` (``~`` is the home directory) and reach the disk
only through ``ctx.scoped_fs``. ``read_file`` answers a header line and the text:

* whole file: ``# <absolute path> (<N> lines)``;
* a range: ``# <absolute path> (lines <a>-<b> of <N>)`` (1-based, inclusive, clamped).

Binary files are described (size and type), never dumped; text that is not valid UTF-8 is
decoded with U+FFFD replacements and a note says so. Only regular files are opened: a
directory, a named pipe, a socket or a device is refused ``input_invalid``, saying which. Every
read is recorded for STALE_WRITE (see `toolwire.toolbox._stale`); ``write_file`` checks that
record, writes atomically, reads the file back to verify it and refreshes the record.

Calls on one file take its path lock (`toolwire.toolbox._locks`), keyed by where the path leads:
reads share it, so readers never wait for each other; a write has it alone, so writes take
turns and never fall between a read and the record it leaves. ``write_file`` needs no read
reach: with write reach alone it still checks STALE_WRITE (a file's time is not its contents)
and verifies the write by its size.
"""

from __future__ import annotations

from toolwire.capabilities import fs_reach
from toolwire.capabilities.seams import ScopedFs
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tool_options import ToolOptions
from toolwire.toolbox._common import missing_seam, refused, resolve_target, too_large
from toolwire.toolbox._file_stats import PathStat, look, same_version, unreadable_kind
from toolwire.toolbox._filetypes import describe_binary, is_binary
from toolwire.toolbox._locks import FILE_LOCKS
from toolwire.toolbox._stale import record_read, refresh_record
from toolwire.toolbox._write_turns import write_turn
from toolwire.tools import ToolAnnotations

__all__ = [
    "READ_FILE_MAX_CHARS",
    "read_file",
    "render_text",
    "split_lines",
    "unreadable",
    "verify_written",
    "write_file",
]

READ_FILE_MAX_CHARS = 40_000
"""``read_file``'s ``max_result_chars``."""

_NOT_UTF8_NOTE = "[note: the file is not valid UTF-8; undecodable bytes are shown as U+FFFD]"


def split_lines(text: str) -> list[str]:
    """The file's lines: split on ``\\n``; a final newline ends the last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def render_text(
    path: str, text: str, start_line: int | None, end_line: int | None, note: str | None = None
) -> ToolResult:
    """The ``read_file`` answer for decoded ``text`` (see the module docstring for the shape)."""
    lines = split_lines(text)
    total = len(lines)
    if start_line is None and end_line is None:
        header = f"# {path} ({total} {'line' if total == 1 else 'lines'})"
        shown = lines
    else:
        first = max(1, start_line or 1)
        last = min(total, end_line if end_line is not None else total)
        if first > total:
            return Err(
                f"start_line {first} is past the end of {path}, which has {total} lines",
                ErrorCode.INPUT_INVALID,
                field="start_line",
            )
        if last < first:
            return Err(
                f"end_line {end_line} is before start_line {first}",
                ErrorCode.INPUT_INVALID,
                field="end_line",
            )
        header = f"# {path} (lines {first}-{last} of {total})"
        shown = lines[first - 1 : last]
    parts = [header] if note is None else [header, note]
    return Ok("\n".join([*parts, *shown]))


_DIRECTORY_HINT = "use search_files, or terminal with ls, to look inside"


def unreadable(target: str, info: PathStat, tool_name: str) -> Err | None:
    """Why ``tool_name`` does not open what ``info`` describes (a directory, a named pipe, a
    socket, a device, a file too large), or ``None`` when it may (or nothing is there)."""
    what = unreadable_kind(info)
    if what is None:
        return too_large(target, info.size if info.exists else None)
    verb = "read" if tool_name == "read_file" else "patch"
    if info.kind == "directory":
        reason = f"it is a directory ({_DIRECTORY_HINT})"
    else:
        reason = f"it is {what}, not a regular file; {tool_name} {verb}s regular files only"
    return Err(f"Cannot {verb} {target}: {reason}", ErrorCode.INPUT_INVALID, field="path")


def _read_error(path: str, exc: OSError) -> Err:
    if isinstance(exc, FileNotFoundError):
        reason = "file not found"
    elif isinstance(exc, IsADirectoryError):
        reason = f"it is a directory ({_DIRECTORY_HINT})"
    else:
        reason = exc.strerror or str(exc)
    return Err(
        f"Cannot read {path}: {reason}", ErrorCode.EXECUTION_FAILED, cause=type(exc).__name__
    )


@tool(
    capabilities=[fs_reach(read="from-personality")],
    options=ToolOptions(
        toolset="file",
        max_result_chars=READ_FILE_MAX_CHARS,
        output_is_untrusted=True,
        annotations=ToolAnnotations(
            title="Read file", read_only=True, idempotent=True, open_world=False
        ),
    ),
)
async def read_file(
    ctx: ToolContext, path: str, start_line: int | None = None, end_line: int | None = None
) -> ToolResult:
    """Read a text file, whole or a range of lines.

    The answer starts with a header line: `# <absolute path> (<N> lines)`, or
    `# <absolute path> (lines <a>-<b> of <N>)` for a range. Binary files are described, not shown.

    Args:
        path: The file, absolute or relative to the working directory.
        start_line: First line to show, 1-based (default: the first).
        end_line: Last line to show, inclusive (default: the last).
    """
    fs = ctx.scoped_fs
    if fs is None:
        return missing_seam("read_file", "file access")
    target = resolve_target(path, ctx.working_dir)
    if isinstance(target, Err):
        return target
    try:
        where = await look(fs, target)
        async with FILE_LOCKS.reading(where.path):
            before = await look(fs, target)
            if not before.exists:
                return Err(f"Cannot read {target}: file not found", ErrorCode.EXECUTION_FAILED)
            problem = unreadable(target, before, "read_file")
            if problem is not None:
                return problem
            data = await fs.read_bytes(target)
            if not same_version(before, await look(fs, target)):
                return Err(
                    f"{target} changed while it was being read; read it again",
                    ErrorCode.EXECUTION_FAILED,
                )
            record_read(ctx, before)
    except CapabilityError as exc:
        return refused(exc)
    except OSError as exc:
        return _read_error(target, exc)
    if is_binary(data):
        kind = describe_binary(data, target)
        return Ok(f"# {target} (binary file: {len(data)} bytes, {kind}; contents not shown)")
    try:
        text, note = data.decode("utf-8"), None
    except UnicodeDecodeError:
        text, note = data.decode("utf-8", errors="replace"), _NOT_UTF8_NOTE
    return render_text(target, text, start_line, end_line, note)


@tool(
    capabilities=[fs_reach(read="from-personality", write="from-personality")],
    options=ToolOptions(
        toolset="file",
        annotations=ToolAnnotations(
            title="Write file", destructive=True, idempotent=True, open_world=False
        ),
    ),
)
async def write_file(ctx: ToolContext, path: str, content: str) -> ToolResult:
    """Create or overwrite a text file with `content` (parent directories are created).

    A file you read earlier is refused with STALE_WRITE if it changed on disk since; read it
    again first. To change part of a file, prefer patch_file.

    Args:
        path: The file, absolute or relative to the working directory.
        content: The complete new content (UTF-8 text; may be empty).
    """
    fs = ctx.scoped_fs
    if fs is None:
        return missing_seam("write_file", "file access")
    target = resolve_target(path, ctx.working_dir)
    if isinstance(target, Err):
        return target
    payload = content.encode("utf-8")
    try:
        async with write_turn(ctx, fs, target) as turn:
            if turn.refusal is not None:
                return turn.refusal
            await fs.write(target, content)
            mismatch = await verify_written(fs, target, payload)
            if mismatch is not None:
                return mismatch
            refresh_record(ctx, turn.before, await look(fs, target))
    except CapabilityError as exc:
        return refused(exc)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return Err(f"Cannot write {target}: {reason}", cause=type(exc).__name__)
    verb = "Overwrote" if turn.before.exists else "Created"
    return Ok(f"{verb} {target} ({len(content)} characters, {len(payload)} bytes)")


async def verify_written(fs: ScopedFs, target: str, payload: bytes) -> Err | None:
    """Read ``target`` back; an error naming the difference when it is not ``payload``.

    Without read reach the contents may not be read back, so only the size is compared.
    """
    try:
        back = await fs.read_bytes(target)
        size: int | None = len(back)
        same = back == payload
    except FileNotFoundError:
        size, same = None, False
    except CapabilityError:  # write-only reach: the size is metadata, the contents are not
        info = await look(fs, target)
        size = info.size if info.exists else None
        same = size == len(payload)
    if same:
        return None
    found = "nothing (the file is missing)" if size is None else f"{size} bytes"
    if size == len(payload):
        found += " with different content"
    return Err(
        f"Write verification failed for {target}: wrote {len(payload)} bytes, read back {found}. "
        "The file system did not keep the write; check the disk and try again.",
        ErrorCode.EXECUTION_FAILED,
        cause="verification_failed",
    )
