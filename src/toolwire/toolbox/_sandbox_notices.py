"""The once-only ``user`` warning of an unsandboxed fallback, emitted by the command tools.

When ``[sandbox] mode = "auto"`` found no usable bubblewrap, the process backend carries a notice
(`toolwire.capabilities.kinds.process.sandbox._modes.unsandboxed_notice`); the first ``terminal`` or
``process_start`` call of the backends' registry takes it and emits it as a ``user``-audience
`ProgressEvent`, so the person watching learns that commands are not sandboxed.
"""

from __future__ import annotations

import contextlib

from toolwire.capabilities.kinds.process.seam import NoticeSource
from toolwire.context import ProgressEvent, ToolContext

__all__ = ["emit_sandbox_notice"]


def emit_sandbox_notice(ctx: ToolContext, seam: object, tool_name: str) -> str | None:
    """Emit the seam's notice, if it has one not yet given, as a ``user`` progress warning.

    Returns:
        The notice emitted, or ``None``.
    """
    if not isinstance(seam, NoticeSource):
        return None
    notice = seam.take_sandbox_notice()
    if notice:
        with contextlib.suppress(Exception):  # a broken emitter must not stop the command
            ctx.emit(ProgressEvent(tool_name=tool_name, message=notice, audience="user"))
    return notice
