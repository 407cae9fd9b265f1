"""``browser_tabs`` (list, new, select, close) and ``browser_close``."""

from __future__ import annotations

from typing import Literal

from toolwire.capabilities.kinds.browser.kind import BROWSER
from toolwire.capabilities.kinds.browser.seam import (
    BrowserSessionView,
    BrowserTab,
    navigation_refusal,
)
from toolwire.context import ToolContext
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox.browser._availability import browser_tool
from toolwire.toolbox.browser._common import Done, act, invalid
from toolwire.toolbox.browser._navigation import goto

__all__ = ["browser_close", "browser_tabs"]


async def _listing(session: BrowserSessionView) -> tuple[str, list[dict[str, object]]]:
    rows: list[dict[str, object]] = []
    lines: list[str] = []
    for index, tab in enumerate(session.tabs):
        try:
            title = (await tab.page.title())[:120]
        except Exception:  # navigating: no title yet
            title = ""
        mark = "*" if index == session.current_index else " "
        lines.append(f"{mark} {index}: {title or '(no title)'} — {tab.page.url}")
        rows.append({"index": index, "title": title, "url": tab.page.url})
    return "\n".join(lines) or "No tabs.", rows


@browser_tool("Browser tabs")
async def browser_tabs(
    ctx: ToolContext,
    action: Literal["list", "new", "select", "close"] = "list",
    index: int | None = None,
    url: str | None = None,
) -> ToolResult:
    """List, open, select or close the browser's tabs (the current one is marked *).

    Args:
        action: list; new (a blank tab, or url); select (index); close (index, or the current).
        index: The tab for select and close (from list).
        url: For new: the address to open in the new tab.
    """
    if url is not None and (problem := navigation_refusal(url)) is not None:
        return Err(f"browser_tabs: {problem}", ErrorCode.INPUT_INVALID, field="url")

    async def tabs(session: BrowserSessionView, tab: BrowserTab) -> Done:
        said = ""
        if action == "new":
            fresh = await session.new_tab()
            said = f"Opened tab {session.current_index}."
            if url is not None:
                said += (
                    " "
                    + (
                        await goto(fresh, url.strip(), session.settings.navigation_timeout_s)
                    ).message
                )
        elif action == "select":
            if index is None:
                raise invalid("select needs the tab's index", "index")
            session.select(index)
            said = f"Tab {index} is the current tab."
        elif action == "close":
            await session.close_tab(session.current_index if index is None else index)
            said = "Closed the tab."
        listing, rows = await _listing(session)
        text = f"{said}\n{listing}" if said else listing
        return Done(text, snapshot=action in ("new", "select"), structured={"tabs": rows})

    return await act(ctx, "browser_tabs", tabs)


@browser_tool("Close the browser")
async def browser_close(ctx: ToolContext) -> ToolResult:
    """Close this session's browser: every tab, its cookies and storage.

    The next browser tool opens a fresh one.
    """
    seam = ctx.seam(BROWSER)
    if seam is None:
        return Err(
            "browser_close: no browser is configured",
            ErrorCode.NOT_AVAILABLE,
            reason="capability_not_configured",
        )
    closed = await seam.close()
    said = "Closed this session's browser." if closed else "This session had no browser open."
    return Ok(said, structured={"closed": closed})
