"""Tools that more than one test server serves (imported by the server scripts beside it).

``slow`` sleeps ``seconds`` (30 when not given); aborted, it writes
``$TOOLWIRE_TEST_MARKERS/<tag>`` (``tag`` defaults to ``slow``) before the cancellation goes
on. ``fail`` always answers an ``Err``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio

from toolwire import ToolContext, err, ok
from toolwire.results import ToolResult

MARKERS = Path(os.environ.get("TOOLWIRE_TEST_MARKERS", "."))


async def slow(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    try:
        await anyio.sleep(float(args.get("seconds", 30)))
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            marker = anyio.Path(MARKERS / str(args.get("tag", "slow")))
            await marker.write_text(f"cancelled aborted={ctx.abort_signal.aborted}")
        raise
    return ok("slept")


async def fail(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return err("the widget is broken")
