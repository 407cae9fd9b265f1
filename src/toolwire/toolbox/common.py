"""What every built-in tool shares: path resolution, the setup hint, refusal shapes, path locks.

Built-in tools reach the world only through their `ToolContext` seams. When a seam is missing
the registry was built without capability backends (or the personality grants nothing), and the
tool answers ``not_available`` with a hint that says how to configure it. A refusal from a seam
(``PATH_NOT_REACHABLE: ...``, ``BINARY_NOT_ALLOWED: ...``) is also answered ``not_available``:
the path or binary is gated off for this personality, exactly like an unknown tool. The seam's
message is kept verbatim, literal prefix included, so a caller can match on it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio

from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode

__all__ = [
    "FILE_LOCKS",
    "MAX_TEXT_FILE_BYTES",
    "SETUP_HINT",
    "PathLocks",
    "display_path",
    "missing_seam",
    "refused",
    "resolve_path",
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
    """
    if path == "~" or path.startswith("~/"):
        path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(working_dir, path)
    normal = os.path.normpath(path)
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def display_path(path: str, working_dir: str) -> str:
    """``path`` relative to ``working_dir`` when it sits below it, else absolute."""
    base = os.path.normpath(working_dir)
    if path.startswith(base.rstrip("/") + "/"):
        return path[len(base.rstrip("/")) + 1 :]
    return path


@dataclass(slots=True)
class _Held:
    lock: anyio.Lock
    users: int


class PathLocks:
    """One lock per absolute path, so calls of one batch touching a file take turns.

    Two ``patch_file`` calls on the same file in one batch then apply one after the other (the
    second reads what the first wrote) instead of the second silently undoing the first. Entries
    live only while someone holds or waits for them.
    """

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: dict[str, _Held] = {}

    @contextlib.asynccontextmanager
    async def hold(self, path: str) -> AsyncIterator[None]:
        """Hold the lock of ``path`` for the body of the ``async with``."""
        held = self._held.get(path)
        if held is None:
            held = self._held[path] = _Held(anyio.Lock(), 0)
        held.users += 1
        try:
            async with held.lock:
                yield
        finally:
            held.users -= 1
            if held.users == 0 and self._held.get(path) is held:
                del self._held[path]

    def __len__(self) -> int:
        return len(self._held)


FILE_LOCKS = PathLocks()
"""The process-wide path locks the file tools share."""
