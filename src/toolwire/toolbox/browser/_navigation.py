"""``browser_navigate``, ``browser_back`` and ``browser_wait_for``.

A navigation waits for the document (``domcontentloaded``), up to the backend's navigation
timeout; when the call is aborted or times out, the page stops loading. A page the egress
proxy refused is answered ``not_available`` with the refusal's code.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import anyio

from toolwire.capabilities.kinds.browser.seam import (
    REFUSAL_HEADER_NAME,
    BrowserSessionView,
    BrowserTab,
    navigation_refusal,
)
from toolwire.context import ToolContext
from toolwire.results import Err, ErrorCode, ToolResult
from toolwire.toolbox.browser._availability import browser_tool
from toolwire.toolbox.browser._common import Done, Failure, act, invalid, stop_loading

if TYPE_CHECKING:
    from playwright.async_api import Response

__all__ = ["MAX_WAIT_S", "browser_back", "browser_navigate", "browser_wait_for", "goto"]

MAX_WAIT_S = 30.0
"""The longest browser_wait_for waits."""
ERROR_PAGE_WAIT_S = 2.0
"""How long a failed navigation waits for Chromium's error page to commit."""
_INTERRUPTED_BY_ERROR_PAGE = 'interrupted by another navigation to "chrome-error:'


async def goto(tab: BrowserTab, url: str, timeout_s: float) -> Done:
    """Navigate ``tab`` to ``url``; stop loading when cancelled or timed out.

    A navigation that failed in the network (``net::ERR_...``) leaves Chromium committing its
    error page a moment later; that is waited for, so it cannot interrupt the next one.

    Raises:
        Failure: the egress proxy refused the page (``not_available``, reason
            ``network_policy``).
    """
    page = tab.page
    for attempt in (1, 2):
        try:
            response = await page.goto(url, wait_until="domcontentloaded", timeout=timeout_s * 1000)
            break
        except BaseException as exc:  # cancelled (abort, the call's timeout) or failed
            await stop_loading(page)
            message = str(exc)
            if "net::ERR_" in message:
                await error_page(tab)
            if attempt == 1 and _INTERRUPTED_BY_ERROR_PAGE in message:
                continue  # the error page of an earlier failure got in the way: go again
            raise
    await refusal(response)
    status = f" (HTTP {response.status})" if response is not None else ""
    return Done(f"Opened {page.url}{status}.")


async def error_page(tab: BrowserTab) -> None:
    """Wait (briefly) for Chromium to commit its error page after a failed load."""
    with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
        await tab.page.wait_for_url(
            lambda address: address.startswith("chrome-error:"), timeout=ERROR_PAGE_WAIT_S * 1000
        )


async def refusal(response: Response | None) -> None:
    """Raise the answer for a page the egress proxy refused; nothing for any other page."""
    if response is None or response.status != 403:
        return
    code = response.headers.get(REFUSAL_HEADER_NAME)
    if code is None:
        return
    try:
        reason = (await response.text()).strip()[:300]
    except Exception:  # the body is gone already
        reason = ""
    host = urlsplit(response.url).netloc
    raise Failure(
        Err(
            f"BLOCKED_BY_POLICY: the network policy refused {host} ({code}): {reason}",
            ErrorCode.NOT_AVAILABLE,
            reason="network_policy",
        )
    )


@browser_tool("Open a web page")
async def browser_navigate(ctx: ToolContext, url: str) -> ToolResult:
    """Open a URL in the browser's current tab and answer the page's snapshot.

    The snapshot lists the page's elements with refs (``[ref=e12]``) to use with browser_click,
    browser_type and browser_select_option. Only http(s) URLs (and about:blank) open.

    Args:
        url: The address to open, e.g. https://example.com/.
    """
    problem = navigation_refusal(url)
    if problem is not None:
        return Err(f"browser_navigate: {problem}", ErrorCode.INPUT_INVALID, field="url")

    async def go(session: BrowserSessionView, tab: BrowserTab) -> Done:
        return await goto(tab, url.strip(), session.settings.navigation_timeout_s)

    return await act(ctx, "browser_navigate", go)


@browser_tool("Go back")
async def browser_back(ctx: ToolContext) -> ToolResult:
    """Go back to the previous page of the current tab and answer its snapshot."""

    async def back(session: BrowserSessionView, tab: BrowserTab) -> Done:
        timeout_ms = session.settings.navigation_timeout_s * 1000
        try:
            response = await tab.page.go_back(wait_until="domcontentloaded", timeout=timeout_ms)
        except BaseException:
            await stop_loading(tab.page)
            raise
        if response is None and tab.page.url in ("", "about:blank"):
            return Done("There is no earlier page in this tab.")
        await refusal(response)
        return Done(f"Went back to {tab.page.url}.")

    return await act(ctx, "browser_back", back)


@browser_tool("Wait in the browser", read_only=True)
async def browser_wait_for(
    ctx: ToolContext,
    text: str | None = None,
    text_gone: str | None = None,
    time_s: float | None = None,
) -> ToolResult:
    """Wait until a text appears or disappears on the page, or for a number of seconds.

    Args:
        text: Wait until this text is visible.
        text_gone: Wait until this text is no longer visible.
        time_s: Seconds to wait (at most 30).
    """
    if text is None and text_gone is None and time_s is None:
        return Err(
            "browser_wait_for: give text, text_gone or time_s",
            ErrorCode.INPUT_INVALID,
            field="text",
        )
    if time_s is not None and not 0 <= time_s <= MAX_WAIT_S:
        return Err(
            f"time_s must be between 0 and {MAX_WAIT_S:g} seconds",
            ErrorCode.INPUT_INVALID,
            field="time_s",
        )

    async def wait(session: BrowserSessionView, tab: BrowserTab) -> Done:
        if time_s:
            await anyio.sleep(time_s)
        timeout_ms = session.settings.action_timeout_s * 1000
        for wanted, state in ((text, "visible"), (text_gone, "hidden")):
            if wanted is None:
                continue
            if not wanted.strip():
                raise invalid("the text to wait for is empty", "text")
            locator = tab.page.get_by_text(wanted).first
            await locator.wait_for(state=state, timeout=timeout_ms)  # type: ignore[arg-type]
        waited = [
            f"{text!r} appeared" if text else "",
            f"{text_gone!r} is gone" if text_gone else "",
        ]
        said = ", ".join(w for w in waited if w) or f"{time_s:g}s passed"
        return Done(f"Waited: {said}.")

    return await act(ctx, "browser_wait_for", wait)
