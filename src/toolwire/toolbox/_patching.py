"""``patch_file`` (toolset ``file``): replace exactly one occurrence of a text, literally.

The replacement is literal: ``$&``, ``$1`` or ``\\1`` in ``new_text`` are written as they are.
Outcomes, in order:

* one match → replaced, written atomically, read back, the STALE_WRITE record refreshed;
* the patch is already applied (``new_text`` is present and ``old_text`` is absent, or every
  ``old_text`` sits inside a ``new_text``) → a success that says nothing changed;
* several matches → an error listing their line numbers and a preview of each;
* no match → an error explaining the nearest candidates (`toolwire.toolbox._diagnosis`).
"""

from __future__ import annotations

from toolwire.capabilities import fs_reach
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tool_options import ToolOptions
from toolwire.toolbox._common import missing_seam, refused, resolve_target
from toolwire.toolbox._diagnosis import explain_no_match, line_of, preview
from toolwire.toolbox._file_stats import look
from toolwire.toolbox._files import unreadable, verify_written
from toolwire.toolbox._stale import refresh_record
from toolwire.toolbox._write_turns import write_turn
from toolwire.tools import ToolAnnotations

__all__ = ["MAX_LISTED_MATCHES", "find_all", "is_already_applied", "patch_file"]

MAX_LISTED_MATCHES = 10
"""Matches listed when ``old_text`` is ambiguous."""


def find_all(text: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping occurrences of ``needle`` in ``text``."""
    found: list[int] = []
    start = text.find(needle)
    while start != -1:
        found.append(start)
        start = text.find(needle, start + len(needle))
    return found


def is_already_applied(text: str, old_text: str, new_text: str, matches: list[int]) -> bool:
    """Whether ``text`` already holds the result of this patch."""
    if not new_text or new_text not in text:
        return False
    if not matches:
        return True
    if old_text not in new_text:
        return False
    spans = [(s, s + len(new_text)) for s in find_all(text, new_text)]
    return all(any(a <= m and m + len(old_text) <= b for a, b in spans) for m in matches)


def _ambiguous(path: str, text: str, matches: list[int]) -> Err:
    lines = [line_of(text, m) for m in matches]
    listed = [
        f"  line {line_of(text, m)}: {preview(text, m)}" for m in matches[:MAX_LISTED_MATCHES]
    ]
    if len(matches) > MAX_LISTED_MATCHES:
        listed.append(f"  … and {len(matches) - MAX_LISTED_MATCHES} more")
    numbers = ", ".join(str(n) for n in lines[:MAX_LISTED_MATCHES])
    return Err(
        f"old_text matches {len(matches)} places in {path} (lines {numbers}"
        f"{', …' if len(matches) > MAX_LISTED_MATCHES else ''}); it must match exactly one. "
        "Include more surrounding lines to pick one, or make one call per place.\n"
        + "\n".join(listed),
        ErrorCode.EXECUTION_FAILED,
        cause="ambiguous_match",
    )


@tool(
    capabilities=[fs_reach(read="from-personality", write="from-personality")],
    options=ToolOptions(
        toolset="file",
        annotations=ToolAnnotations(title="Patch file", destructive=True, open_world=False),
    ),
)
async def patch_file(ctx: ToolContext, path: str, old_text: str, new_text: str) -> ToolResult:
    """Replace one exact occurrence of `old_text` with `new_text` in a text file.

    `old_text` must match exactly one place, whitespace included; copy it from read_file output
    (without the header line). The replacement is literal. A file you read earlier is refused
    with STALE_WRITE if it changed on disk since.

    Args:
        path: The file, absolute or relative to the working directory.
        old_text: The exact text to replace (non-empty).
        new_text: The text to put in its place (may be empty to delete).
    """
    fs = ctx.scoped_fs
    if fs is None:
        return missing_seam("patch_file", "file access")
    if not old_text:
        return Err(
            "old_text is empty; give the exact text to replace (use write_file to create a file)",
            ErrorCode.INPUT_INVALID,
            field="old_text",
        )
    target = resolve_target(path, ctx.working_dir)
    if isinstance(target, Err):
        return target
    try:
        async with write_turn(ctx, fs, target) as turn:
            if turn.refusal is not None:
                return turn.refusal
            problem = unreadable(target, turn.before, "patch_file")
            if problem is not None:
                return problem
            try:
                text = (await fs.read_bytes(target)).decode("utf-8")
            except UnicodeDecodeError:
                return Err(
                    f"{target} is not valid UTF-8 text; patch_file edits text files only",
                    ErrorCode.EXECUTION_FAILED,
                )
            matches = find_all(text, old_text)
            if is_already_applied(text, old_text, new_text, matches):
                where = line_of(text, text.find(new_text))
                return Ok(f"No change: the patch is already applied at {target} (line {where}).")
            if not matches:
                return Err(
                    explain_no_match(target, text, old_text),
                    ErrorCode.EXECUTION_FAILED,
                    cause="no_match",
                )
            if len(matches) > 1:
                return _ambiguous(target, text, matches)
            at = matches[0]
            patched = text[:at] + new_text + text[at + len(old_text) :]
            await fs.write(target, patched)
            mismatch = await verify_written(fs, target, patched.encode("utf-8"))
            if mismatch is not None:
                return mismatch
            refresh_record(ctx, turn.before, await look(fs, target))
    except CapabilityError as exc:
        return refused(exc)
    except FileNotFoundError:
        return Err(f"Cannot patch {target}: file not found", ErrorCode.EXECUTION_FAILED)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return Err(f"Cannot patch {target}: {reason}", cause=type(exc).__name__)
    return Ok(f"Patched {target} at line {line_of(text, at)}.")
