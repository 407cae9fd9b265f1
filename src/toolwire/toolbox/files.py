"""``read_file`` and ``write_file`` (toolset ``file``).

Both resolve paths against ``ctx.working_dir`` (``~`` is the home directory) and reach the disk
only through ``ctx.scoped_fs``. ``read_file`` answers a header line and the text:

* whole file: ``# <absolute path> (<N> lines)``;
* a range: ``# <absolute path> (lines <a>-<b> of <N>)`` (1-based, inclusive, clamped).

Binary files are described (size and type), never dumped; text that is not valid UTF-8 is
decoded with U+FFFD replacements and a note says so. Every read is recorded for STALE_WRITE
(see `toolwire.toolbox.stale`); ``write_file`` checks that record, writes atomically, reads the
file back to verify it and refreshes the record.
"""

from __future__ import annotations

from toolwire.capabilities import fs_reach
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.seams import ReadRecord, ScopedFs
from toolwire.toolbox.common import FILE_LOCKS, missing_seam, refused, resolve_path, too_large
from toolwire.toolbox.filetypes import describe_binary, is_binary
from toolwire.toolbox.protected import write_refusal
from toolwire.toolbox.stale import check_not_stale, refresh_record
from toolwire.tools import ToolAnnotations

__all__ = [
    "READ_FILE_MAX_CHARS",
    "read_file",
    "render_text",
    "split_lines",
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


def _read_error(path: str, exc: OSError) -> Err:
    if isinstance(exc, FileNotFoundError):
        reason = "file not found"
    elif isinstance(exc, IsADirectoryError):
        reason = "it is a directory (use search_files, or terminal with ls, to look inside)"
    else:
        reason = exc.strerror or str(exc)
    return Err(
        f"Cannot read {path}: {reason}", ErrorCode.EXECUTION_FAILED, cause=type(exc).__name__
    )


@tool(
    toolset="file",
    capabilities=[fs_reach(read="from-personality")],
    max_result_chars=READ_FILE_MAX_CHARS,
    output_is_untrusted=True,
    annotations=ToolAnnotations(title="Read file", read_only=True, idempotent=True),
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
    target = resolve_path(path, ctx.working_dir)
    try:
        async with FILE_LOCKS.hold(target):
            before = await fs.mtime(target)
            if before is None:
                return Err(f"Cannot read {target}: file not found", ErrorCode.EXECUTION_FAILED)
            oversized = too_large(target, await fs.size(target))
            if oversized is not None:
                return oversized
            data = await fs.read_bytes(target)
            if await fs.mtime(target) != before:
                return Err(
                    f"{target} changed while it was being read; read it again",
                    ErrorCode.EXECUTION_FAILED,
                )
            if ctx.read_mtimes is not None:
                ctx.read_mtimes[target] = ReadRecord(mtime=before, read_at_turn=ctx.current_turn)
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
    toolset="file",
    capabilities=[fs_reach(read="from-personality", write="from-personality")],
    annotations=ToolAnnotations(title="Write file", destructive=True, idempotent=True),
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
    target = resolve_path(path, ctx.working_dir)
    refusal = write_refusal(target)
    if refusal is not None:
        return Err(refusal, ErrorCode.NOT_AVAILABLE, reason="protected_path")
    payload = content.encode("utf-8")
    try:
        async with FILE_LOCKS.hold(target):
            stale = await check_not_stale(ctx, fs, target)
            if stale is not None:
                return stale
            existed = await fs.mtime(target) is not None
            await fs.write(target, content)
            mismatch = await verify_written(fs, target, payload)
            if mismatch is not None:
                return mismatch
            await refresh_record(ctx, fs, target)
    except CapabilityError as exc:
        return refused(exc)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return Err(f"Cannot write {target}: {reason}", cause=type(exc).__name__)
    verb = "Overwrote" if existed else "Created"
    return Ok(f"{verb} {target} ({len(content)} characters, {len(payload)} bytes)")


async def verify_written(fs: ScopedFs, target: str, payload: bytes) -> Err | None:
    """Read ``target`` back; an error naming the difference when it is not ``payload``."""
    try:
        back: bytes | None = await fs.read_bytes(target)
    except FileNotFoundError:
        back = None
    if back == payload:
        return None
    found = "nothing (the file is missing)" if back is None else f"{len(back)} bytes"
    if back is not None and len(back) == len(payload):
        found += " with different content"
    return Err(
        f"Write verification failed for {target}: wrote {len(payload)} bytes, read back {found}. "
        "The file system did not keep the write; check the disk and try again.",
        ErrorCode.EXECUTION_FAILED,
        cause="verification_failed",
    )
