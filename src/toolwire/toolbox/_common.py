"""What every built-in tool shares: path resolution, the setup hint, refusal shapes.

Built-in tools reach the world only through their `ToolContext` seams. When a seam is missing
the registry was built without capability backends (or the personality grants nothing), and the
tool answers ``not_available`` with a hint that says how to configure it. A refusal from a seam
(``PATH_NOT_REACHABLE: ...``, ``BINARY_NOT_ALLOWED: ...``) is also answered ``not_available``:
the path or binary is gated off for this personality, exactly like an unknown tool. The seam's
message is kept verbatim, literal prefix included, so a caller can match on it.

A path holding a NUL byte is refused ``input_invalid`` before anything else looks at it:
normalising ``a/\0/../b`` would drop the NUL along with its segment, and the seam (which
refuses NUL itself) would then see an innocent ``a/b``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from toolwire.capabilities.kinds.shared_storage.kind import shared_storage
from toolwire.decorator import tool
from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode
from toolwire.tool_options import ToolOptions
from toolwire.tools import Tool, ToolAnnotations

__all__ = [
    "MAX_TEXT_FILE_BYTES",
    "SETUP_HINT",
    "display_path",
    "missing_seam",
    "refused",
    "resolve_path",
    "resolve_target",
    "shared_state_tool",
    "too_large",
]

MAX_TEXT_FILE_BYTES = 64 * 1024 * 1024
"""The largest file read_file and patch_file load; a larger one is refused before it is read."""


def too_large(target: str, size: int | None) -> Err | None:
    """The answer for a file over `MAX_TEXT_FILE_BYTES`, or ``None`` when it fits."""
    if size is None or size <= MAX_TEXT_FILE_BYTES:
        return None
    return Err(
        f"{target} is {size:,} bytes, over the {MAX_TEXT_FILE_BYTES // (1024 * 1024)} MiB the file "
        "tools load; read parts of it with the terminal (head, tail, sed -n 'a,bp', grep)",
        ErrorCode.EXECUTION_FAILED,
        cause="file_too_large",
    )


SETUP_HINT = (
    "create the registry with backends=create_backends() (or CapabilityBackends(...) granting "
    "this personality file reach) so built-in tools can reach files and processes"
)
"""How to give built-in tools their seams; part of every missing-seam error."""


def missing_seam(tool_name: str, what: str) -> Err:
    """The ``not_available`` answer when the seam a tool needs was not resolved.

    Args:
        tool_name: The tool that needs the seam.
        what: A short name of the missing capability (``"file access"``, ``"processes"``).
    """
    return Err(
        f"{tool_name}: {what} is not configured for this personality; {SETUP_HINT}.",
        ErrorCode.NOT_AVAILABLE,
        reason="capability_not_configured",
    )


def refused(exc: CapabilityError) -> Err:
    """A seam's refusal as a ``not_available`` result that keeps its literal prefix."""
    return Err(str(exc), ErrorCode.NOT_AVAILABLE, reason="capability_refused")


def resolve_path(path: str, working_dir: str) -> str:
    """``path`` as a normalised absolute path: ``~`` expanded, relative to ``working_dir``.

    Resolution is lexical (``..`` collapsed, links untouched); the seam re-checks reach and
    links on whatever this returns.

    Raises:
        ValueError: ``path`` holds a NUL byte (normalising could drop it unseen).
    """
    if "\0" in path:
        raise ValueError("a path cannot hold a NUL byte")
    if path == "~" or path.startswith("~/"):
        path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(working_dir, path)
    normal = os.path.normpath(path)
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def resolve_target(path: str, working_dir: str, field: str = "path") -> str | Err:
    """`resolve_path`, or the ``input_invalid`` answer for a path holding a NUL byte."""
    if "\0" in path:
        return Err(
            f"{field} holds a NUL byte (\\0); no file name can contain one",
            ErrorCode.INPUT_INVALID,
            field=field,
        )
    return resolve_path(path, working_dir)


def display_path(path: str, working_dir: str) -> str:
    """``path`` relative to ``working_dir`` when it sits below it, else absolute."""
    base = os.path.normpath(working_dir)
    if path.startswith(base.rstrip("/") + "/"):
        return path[len(base.rstrip("/")) + 1 :]
    return path


def shared_state_tool(
    group: str, title: str, *, read_only: bool, max_result_chars: int, untrusted: bool = False
) -> Callable[[Callable[..., Any]], Tool]:
    """`tool` for the ``group`` toolset, whose tools keep their state in the ``group`` shared
    storage (the todo list, the kanban board, long-term memory) and reach nothing else.

    Args:
        group: The toolset and the shared storage group.
        title: The tool's human title.
        read_only: Whether the tool only reads the state.
        max_result_chars: Its result budget.
        untrusted: Whether its output carries text other agents wrote.
    """
    return tool(
        capabilities=[shared_storage(group=group)],
        options=ToolOptions(
            toolset=group,
            output_is_untrusted=untrusted,
            max_result_chars=max_result_chars,
            annotations=ToolAnnotations(title=title, read_only=read_only, open_world=False),
        ),
    )
