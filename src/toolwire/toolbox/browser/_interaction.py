"""``browser_click``, ``browser_type``, ``browser_press_key`` and ``browser_select_option``.

Elements are named by the refs of the tab's latest snapshot (``e12``; ``f1e3`` inside an
iframe), as the Playwright MCP server does: a ref that snapshot did not list is refused, so
the model acts on what it saw. After the action the page may navigate; the answer waits for
its document and ends with a new snapshot.
"""

from __future__ import annotations

import contextlib
from typing import Literal

import anyio

from toolwire.capabilities.kinds.browser.seam import BrowserSessionView, BrowserTab
from toolwire.context import ToolContext
from toolwire.results import Err, ErrorCode, ToolResult
from toolwire.toolbox.browser._availability import browser_tool
from toolwire.toolbox.browser._common import Done, act, invalid, locate

__all__ = ["browser_click", "browser_press_key", "browser_select_option", "browser_type"]

POPUP_WAIT_S = 0.3
"""How long a click waits for a tab it may have opened (it is listed in the answer)."""
MAX_TYPED_CHARS = 10_000
"""The most text browser_type enters at once."""


async def settle(tab: BrowserTab, session: BrowserSessionView) -> None:
    """Give a navigation the action started the time to load its document."""
    from playwright.async_api import Error as PlaywrightError

    with contextlib.suppress(PlaywrightError):
        timeout_ms = session.settings.navigation_timeout_s * 1000
        await tab.page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)


@browser_tool("Click in the browser")
async def browser_click(
    ctx: ToolContext,
    ref: str,
    element: str = "",
    double_click: bool = False,
    button: Literal["left", "right", "middle"] = "left",
) -> ToolResult:
    """Click an element of the page, named by its ref from the latest snapshot.

    Args:
        ref: The element's ref in the latest snapshot, e.g. e12.
        element: What the element is, in words (for the record).
        double_click: Double-click instead.
        button: The mouse button.
    """

    async def click(session: BrowserSessionView, tab: BrowserTab) -> Done:
        locator = locate(tab, ref)
        popup = anyio.Event()
        tab.page.once("popup", lambda _: popup.set())
        if double_click:
            await locator.dblclick(button=button)
        else:
            await locator.click(button=button)
        with anyio.move_on_after(POPUP_WAIT_S):  # a link may open a tab: let it register
            await popup.wait()
        await settle(tab, session)
        return Done(f"Clicked {element or ref}.")

    return await act(ctx, "browser_click", click)


@browser_tool("Type in the browser")
async def browser_type(
    ctx: ToolContext,
    ref: str,
    text: str,
    submit: bool = False,
    slowly: bool = False,
    element: str = "",
) -> ToolResult:
    """Type text into an editable element (replacing its content), optionally pressing Enter.

    Args:
        ref: The element's ref in the latest snapshot, e.g. e12.
        text: The text to enter.
        submit: Press Enter afterwards (submits most forms).
        slowly: Type one key at a time (for pages that react to each key) instead of filling.
        element: What the element is, in words (for the record).
    """
    if len(text) > MAX_TYPED_CHARS:
        return Err(
            f"text is {len(text):,} characters; browser_type enters at most {MAX_TYPED_CHARS:,}",
            ErrorCode.INPUT_INVALID,
            field="text",
        )

    async def type_text(session: BrowserSessionView, tab: BrowserTab) -> Done:
        locator = locate(tab, ref)
        if slowly:
            await locator.fill("")
            await locator.press_sequentially(text)
        else:
            await locator.fill(text)
        if submit:
            await locator.press("Enter")
            await settle(tab, session)
        then = " and pressed Enter" if submit else ""
        return Done(f"Typed {len(text)} characters into {element or ref}{then}.")

    return await act(ctx, "browser_type", type_text)


@browser_tool("Press a key in the browser")
async def browser_press_key(ctx: ToolContext, key: str) -> ToolResult:
    """Press a key (or a chord) on the focused element of the page.

    Args:
        key: A key name such as Enter, Tab, ArrowDown, Escape, a character such as a, or a
            chord such as Control+a.
    """
    if not key or len(key) > 64:
        return Err("key must be a key name such as Enter", ErrorCode.INPUT_INVALID, field="key")

    async def press(session: BrowserSessionView, tab: BrowserTab) -> Done:
        from playwright.async_api import Error as PlaywrightError

        try:
            await tab.page.keyboard.press(key)
        except PlaywrightError as exc:
            if "Unknown key" in (exc.message or ""):
                raise invalid(f"unknown key {key!r}; use a name such as Enter", "key") from exc
            raise
        await settle(tab, session)
        return Done(f"Pressed {key}.")

    return await act(ctx, "browser_press_key", press)


@browser_tool("Select in the browser")
async def browser_select_option(
    ctx: ToolContext, ref: str, values: list[str], element: str = ""
) -> ToolResult:
    """Choose options of a drop-down (select) element, by their values or labels.

    Args:
        ref: The select element's ref in the latest snapshot, e.g. e12.
        values: The options to choose (one, or several for a multiple select).
        element: What the element is, in words (for the record).
    """
    if not values:
        return Err("values is empty: name an option", ErrorCode.INPUT_INVALID, field="values")

    async def select(session: BrowserSessionView, tab: BrowserTab) -> Done:
        locator = locate(tab, ref)
        chosen = await locator.select_option(values)
        await settle(tab, session)
        return Done(
            f"Selected {', '.join(repr(v) for v in chosen) or 'nothing'} in {element or ref}.",
            structured={"selected": chosen},
        )

    return await act(ctx, "browser_select_option", select)
