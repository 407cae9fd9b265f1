"""Report files: where a checker writes its machine-readable report, read back and removed.

A report file keeps the whole report whatever its size (a child's stdout is kept only up to
about 1 MB, head and tail) and keeps it apart from whatever the tests print. It is
``<project root>/.code-report-<session>-<epoch ms>-<8 hex><suffix>``: in the project root,
because a sandboxed checker sees the project (mounted writable when it is in write reach) but
not toolwire's ``.toolwire`` directories, nor a temporary directory of the host. It is used
only when the project root is in write reach, read through the call's ``ScopedFs``
(reach-checked) and removed as soon as it is read. Reading refuses a report over
`MAX_REPORT_BYTES`.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import time
from collections.abc import AsyncIterator

from toolwire.errors import CapabilityError
from toolwire.toolbox.code._running import CheckRequest

__all__ = ["MAX_REPORT_BYTES", "REPORT_PREFIX", "ReportTooLargeError", "report_file"]

REPORT_PREFIX = ".code-report-"
"""How a report file's name starts."""
MAX_REPORT_BYTES = 64 * 1024 * 1024
"""The largest report read back."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class ReportTooLargeError(ValueError):
    """A report is over `MAX_REPORT_BYTES`."""


class ReportFile:
    """A report path for one checker run; `read` gives its bytes (``None``: not written)."""

    __slots__ = ("_request", "path")

    def __init__(self, request: CheckRequest, path: str) -> None:
        self._request = request
        self.path = path

    async def read(self) -> bytes | None:
        """The report's bytes, or ``None`` when the checker wrote none.

        Raises:
            ReportTooLargeError: it is over `MAX_REPORT_BYTES`.
        """
        fs = self._request.fs
        size = await fs.size(self.path)
        if size is None:
            return None
        if size > MAX_REPORT_BYTES:
            raise ReportTooLargeError(f"{size:,} bytes, over {MAX_REPORT_BYTES:,}")
        try:
            return await fs.read_bytes(self.path)
        except FileNotFoundError:
            return None


@contextlib.asynccontextmanager
async def report_file(request: CheckRequest, suffix: str) -> AsyncIterator[ReportFile | None]:
    """A fresh report path (``None`` when the project is not writable), removed afterwards."""
    if not request.writable:
        yield None
        return
    session = _UNSAFE.sub("_", request.ctx.session_id)[:40] or "session"
    name = f"{REPORT_PREFIX}{session}-{int(time.time() * 1000)}-{secrets.token_hex(4)}{suffix}"
    report = ReportFile(request, request.project.path(name))
    try:
        yield report
    finally:
        with contextlib.suppress(CapabilityError, OSError):
            await request.fs.remove(report.path)
