"""``browser_snapshot``, ``browser_screenshot`` and ``browser_console_messages``."""

from __future__ import annotations

import base64
from typing import Literal

from toolwire.capabilities.kinds.browser.seam import BrowserSessionView, BrowserTab
from toolwire.context import ToolContext
from toolwire.results import Err, ErrorCode, ToolResult
from toolwire.toolbox.browser._availability import browser_tool
from toolwire.toolbox.browser._common import Done, Failure, act, locate
from toolwire.toolbox.browser._snapshots import reduce_snapshot

__all__ = [
    "MAX_SNAPSHOT_CHARS",
    "browser_console_messages",
    "browser_screenshot",
    "browser_snapshot",
]

MAX_SNAPSHOT_CHARS = 40_000
"""The default and the largest cut of browser_snapshot."""
_CONSOLE_TEXT_CHARS = 500


@browser_tool("Page snapshot", read_only=True)
async def browser_snapshot(
    ctx: ToolContext, ref: str | None = None, max_chars: int = MAX_SNAPSHOT_CHARS
) -> ToolResult:
    """The current page's accessibility tree: roles, names, text and element refs.

    Refs (``[ref=e12]``) name elements for browser_click, browser_type and
    browser_select_option; they are valid until the next snapshot.

    Args:
        ref: Only the part under this element (from an earlier snapshot).
        max_chars: Cut the snapshot at this many characters (at most 40000).
    """
    if not 500 <= max_chars <= MAX_SNAPSHOT_CHARS:
        return Err(
            f"max_chars must be between 500 and {MAX_SNAPSHOT_CHARS}",
            ErrorCode.INPUT_INVALID,
            field="max_chars",
        )

    async def snapshot(session: BrowserSessionView, tab: BrowserTab) -> Done:
        if ref is None:
            text = await tab.page.aria_snapshot(mode="ai")
        else:
            text = await locate(tab, ref).aria_snapshot(mode="ai")
        tab.remember_refs(text, part=ref is not None)
        reduced, cut = reduce_snapshot(text, max_chars)
        return Done(reduced, snapshot=False, structured={"cut": cut, "chars": len(text)})

    return await act(ctx, "browser_snapshot", snapshot)


@browser_tool("Screenshot", read_only=True)
async def browser_screenshot(
    ctx: ToolContext, full_page: bool = False, ref: str | None = None
) -> ToolResult:
    """A PNG image of the current tab (what is in view, the whole page, or one element).

    Args:
        full_page: The whole scrollable page instead of what is in view.
        ref: Only this element (its ref in the latest snapshot).
    """

    async def shoot(session: BrowserSessionView, tab: BrowserTab) -> Done:
        if ref is not None:
            image = await locate(tab, ref).screenshot(type="png")
        else:
            image = await tab.page.screenshot(type="png", full_page=full_page)
        limit = session.settings.max_screenshot_bytes
        if len(image) > limit:
            raise Failure(
                Err(
                    f"the screenshot is {len(image):,} bytes, over the {limit:,} answered; "
                    "take the view (full_page=false) or one element (ref)",
                    cause="too_large",
                )
            )
        what = f"element {ref}" if ref else ("whole page" if full_page else "view")
        return Done(
            f"Screenshot of the {what}: PNG, {len(image):,} bytes (the image is attached).",
            snapshot=False,
            structured={
                "image": {"mime_type": "image/png", "data": base64.b64encode(image).decode()},
                "bytes": len(image),
            },
        )

    return await act(ctx, "browser_screenshot", shoot)


@browser_tool("Console messages", read_only=True)
async def browser_console_messages(
    ctx: ToolContext,
    level: Literal["all", "error", "warning", "info", "debug"] = "all",
    clear: bool = False,
) -> ToolResult:
    """The current tab's console messages and uncaught errors, oldest first.

    Args:
        level: Only messages of this level (error includes uncaught page errors).
        clear: Forget the messages once answered.
    """
    wanted = {
        "all": None,
        "error": {"error", "pageerror"},
        "warning": {"warning"},
        "info": {"info", "log"},
        "debug": {"debug", "trace"},
    }[level]

    async def console(session: BrowserSessionView, tab: BrowserTab) -> Done:
        entries = [e for e in tab.console if wanted is None or e.level in wanted]
        if clear:
            tab.console.clear()
        lines = [
            f"[{e.level}] {e.text[:_CONSOLE_TEXT_CHARS]}" + (f" ({e.url})" if e.url else "")
            for e in entries
        ]
        body = "\n".join(lines) if lines else "No console messages."
        return Done(body, snapshot=False, structured={"count": len(entries)})

    return await act(ctx, "browser_console_messages", console)
