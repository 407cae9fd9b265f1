"""What the browser tools share: the session, running an action, and the answer's shape.

Each tool acts under the session's lock, on its current tab, and answers the page's title and
URL, the requests the network policy blocked since the last answer, what the page did on its
own (dialogs dismissed, downloads refused, tabs opened), and, after an action, a reduced
snapshot to act on next.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from toolwire.capabilities.kinds.browser.kind import BROWSER
from toolwire.capabilities.seams import ElsewhereError
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox.browser._downloads import land_downloads
from toolwire.toolbox.browser._snapshots import reduce_snapshot

if TYPE_CHECKING:
    from playwright.async_api import Locator, Page

    from toolwire.capabilities.kinds.browser.seam import BrowserSessionView, BrowserTab

__all__ = [
    "ACTION_SNAPSHOT_CHARS",
    "Action",
    "Done",
    "Failure",
    "act",
    "answer",
    "invalid",
    "locate",
    "page_state",
    "stop_loading",
]

ACTION_SNAPSHOT_CHARS = 12_000
"""The snapshot an action answers with is cut here (browser_snapshot takes more)."""
_REF = re.compile(r"^(?:f\d+)?e\d+$")


@dataclass(frozen=True, slots=True)
class Done:
    """What an action did: a sentence, and whether to answer a snapshot after it."""

    message: str
    snapshot: bool = True
    structured: dict[str, Any] | None = None


class Failure(Exception):
    """Raised inside an action to answer ``result`` instead."""

    def __init__(self, result: Err) -> None:
        super().__init__(result.error)
        self.result = result


Action = Callable[["BrowserSessionView", "BrowserTab"], Awaitable[Done]]


def invalid(message: str, field: str) -> Failure:
    """An ``input_invalid`` answer about ``field``."""
    return Failure(Err(message, ErrorCode.INPUT_INVALID, field=field))


async def act(ctx: ToolContext, name: str, action: Action) -> ToolResult:
    """Run ``action`` on the current tab of the call's session, under the session's lock."""
    seam = ctx.seam(BROWSER)
    if seam is None:
        return Err(
            f"{name}: no browser is configured; give the registry's backends "
            "kind_backends={'browser': BrowserBackend()} (Chromium and toolwire[browser])",
            ErrorCode.NOT_AVAILABLE,
            reason="capability_not_configured",
        )
    try:
        session = await seam.open()
    except ElsewhereError as elsewhere:  # replicas: another replica holds this session's browser
        return elsewhere.to_err()
    except ConfigurationError as exc:
        return Err(f"{name}: {exc}", ErrorCode.NOT_AVAILABLE, reason="browser_unavailable")
    except OSError as exc:
        return Err(f"{name}: {exc}", cause="browser_failed")
    async with session.lock:
        session.touch()
        try:
            tab = await session.tab()
            done = await action(session, tab)
            return await answer(session, await session.tab(), done, ctx)
        except Failure as failure:
            return failure.result
        except Exception as exc:
            return _playwright_failure(name, exc)


def _playwright_failure(name: str, exc: Exception) -> Err:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    if isinstance(exc, ValueError | IndexError):
        return Err(f"{name}: {exc}", ErrorCode.INPUT_INVALID)
    if not isinstance(exc, PlaywrightError):
        raise exc
    first = (exc.message or str(exc)).strip().splitlines()
    message = first[0] if first else type(exc).__name__
    if "ERR_TUNNEL_CONNECTION_FAILED" in message:  # the proxy answered a CONNECT with an error
        return Err(
            f"{name}: the egress proxy did not open a tunnel to that host: the network policy "
            f"refuses it, or it cannot be reached ({message[:300]})",
            cause="tunnel_refused",
        )
    cause = "timeout" if isinstance(exc, PlaywrightTimeout) else "browser_error"
    return Err(f"{name}: {message[:500]}", cause=cause)


async def answer(session: BrowserSessionView, tab: BrowserTab, done: Done, ctx: ToolContext) -> Ok:
    """The tool's answer: ``done``'s sentence, the page's state and maybe a snapshot; the
    tab's downloads are saved (or refused) first."""
    landed = await land_downloads(ctx, tab, session.settings)
    parts = [done.message]
    state = await page_state(session, tab)
    parts.append(f"Page: {state['title'] or '(no title)'} — {state['url']}")
    if len(session.tabs) > 1:
        parts.append(f"Tabs: {len(session.tabs)} open, this is tab {session.current_index}")
    blocked = list(dict.fromkeys(tab.blocked))
    tab.blocked.clear()
    if blocked:
        listed = ", ".join(f"{b.host} ({b.code})" for b in blocked)
        parts.append(f"Blocked by the network policy: {listed}")
    notes = [*session.take_notes(), *tab.take_notes(), *landed]
    if notes:
        parts.append("The page on its own: " + "; ".join(notes))
    structured: dict[str, Any] = {
        **state,
        "blocked": [{"host": b.host, "code": b.code} for b in blocked],
        **(done.structured or {}),
    }
    if done.snapshot:
        text = await tab.page.aria_snapshot(mode="ai")
        tab.remember_refs(text)
        reduced, _ = reduce_snapshot(text, ACTION_SNAPSHOT_CHARS)
        parts.append(f"Snapshot:\n{reduced}")
    return Ok("\n".join(parts), structured=structured)


async def page_state(session: BrowserSessionView, tab: BrowserTab) -> dict[str, Any]:
    """The current tab's URL and title, and which tab it is."""
    try:
        title = await tab.page.title()
    except Exception:  # the page is navigating: no title yet
        title = ""
    return {"url": tab.page.url, "title": title[:300], "tab": session.current_index}


def locate(tab: BrowserTab, ref: str) -> Locator:
    """The element ``ref`` names in the tab's latest snapshot.

    Raises:
        Failure: ``ref`` is not a ref, or not one of the latest snapshot's.
    """
    if not _REF.match(ref):
        raise invalid(f"ref {ref!r} is not an element reference such as 'e12'", "ref")
    if ref not in tab.refs:
        raise invalid(
            f"ref {ref!r} is not in this tab's latest snapshot; call browser_snapshot and use "
            "a ref from it",
            "ref",
        )
    return tab.page.locator(f"aria-ref={ref}")


async def stop_loading(page: Page) -> None:
    """Stop whatever the page is loading (a navigation that was cancelled or timed out)."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(5):
        try:
            cdp = await page.context.new_cdp_session(page)
            await cdp.send("Page.stopLoading")
            await cdp.detach()
        except Exception:  # the page or the browser is gone: nothing to stop
            pass
