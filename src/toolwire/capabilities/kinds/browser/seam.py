"""The seam of the ``browser`` kind: `ScopedBrowser`, the session's `BrowserSessionView` and its
`BrowserTab`s, and the values they carry.

A tool that declared ``browser()`` gets, from ``ctx.seam(BROWSER)``, the call's session in the
shared Chromium (`ScopedBrowser`). Opening it gives the session (its tabs, settings and lock);
each tab holds a Playwright page — the one thing of the driver a tool touches: every request the
page makes goes through the session's egress-proxy listener under the call's network policy, and
a navigation to anything but ``http(s)`` and ``about:blank`` is refused (`navigation_refusal`).
The implementations (`toolwire.capabilities.kinds.browser._session.BrowserSession`,
`toolwire.capabilities.kinds.browser._tabs.Tab`) start and close the driver; a tool never does.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import anyio
    from playwright.async_api import Download, Page

__all__ = [
    "ALLOWED_SCHEMES",
    "REFUSAL_HEADER_NAME",
    "BlockedRequest",
    "BrowserLimits",
    "BrowserSessionView",
    "BrowserTab",
    "ConsoleEntry",
    "ScopedBrowser",
    "navigation_refusal",
]

ALLOWED_SCHEMES = frozenset({"http", "https"})
"""Schemes a navigation may use (plus the exact URL ``about:blank``)."""

REFUSAL_HEADER_NAME = "x-toolwire-refusal"
"""The egress proxy's refusal header
(``toolwire.capabilities.kinds.process.sandbox.egress.REFUSAL_HEADER``), lower case as Playwright
gives headers; spelled here so the tools import without httpx."""


def navigation_refusal(url: str) -> str | None:
    """Why ``url`` may not be opened, or ``None`` when it may (``http(s)`` or ``about:blank``).

    ``file:`` (the machine's files), ``chrome:`` and ``devtools:`` (the browser's own pages),
    ``data:``, ``blob:``, ``javascript:``, ``view-source:``, ``filesystem:`` and every other
    scheme are refused. Whatever passes still goes through the egress proxy, which applies the
    network policy to the host.
    """
    text = url.strip()
    if text.lower() == "about:blank":
        return None
    if any(ord(c) < 0x20 or c in "\x7f\\" for c in text):
        return "the URL holds a control character or a backslash"
    try:
        scheme = urlsplit(text).scheme.lower()
    except ValueError:
        return "the URL cannot be parsed"
    if not scheme:
        return "the URL has no scheme; write it whole, e.g. https://example.com/"
    if scheme not in ALLOWED_SCHEMES:
        return f"the scheme {scheme!r} is not allowed (only http, https and about:blank)"
    if not text.lower().startswith(f"{scheme}://"):
        return "the URL must be written scheme://host/..."
    return None


@dataclass(frozen=True, slots=True)
class ConsoleEntry:
    """A console message or an uncaught page error."""

    level: str
    text: str
    url: str = ""


@dataclass(frozen=True, slots=True)
class BlockedRequest:
    """A request of the page the egress proxy refused (``code``: its refusal code)."""

    host: str
    code: str


class BrowserLimits(Protocol):
    """The limits a session's tools work within (`BrowserSettings` has them)."""

    @property
    def navigation_timeout_s(self) -> float:
        """How long a navigation may take."""
        ...

    @property
    def action_timeout_s(self) -> float:
        """How long a click, a fill or a key press may take."""
        ...

    @property
    def max_download_bytes(self) -> int:
        """The largest download saved."""
        ...

    @property
    def max_screenshot_bytes(self) -> int:
        """The largest screenshot answered."""
        ...


class BrowserTab(Protocol):
    """One page of a session and what happened on it.

    Attributes:
        page: The Playwright page (its requests go through the session's egress proxy).
        console: Console messages and uncaught errors, oldest first (bounded).
        blocked: Requests the egress proxy refused (bounded).
        downloads: Downloads waiting to be saved through the file seam.
        refs: The element refs of the newest snapshot: only they may be acted on.
    """

    page: Page
    console: deque[ConsoleEntry]
    blocked: deque[BlockedRequest]
    downloads: deque[Download]
    refs: frozenset[str]

    def remember_refs(self, snapshot: str, *, part: bool = False) -> None:
        """Keep the refs of ``snapshot`` (``part``: added to the page's, for one element)."""
        ...

    def take_notes(self) -> list[str]:
        """What happened since the last call (downloads and dialogs refused, ...), once."""
        ...

    def later(self, pending: Awaitable[object]) -> None:
        """Run ``pending`` in the background, errors ignored."""
        ...


class BrowserSessionView(Protocol):
    """A session's browser context as its tools see it; they hold `lock` while they act."""

    lock: anyio.Lock

    @property
    def settings(self) -> BrowserLimits:
        """The limits the tools work within."""
        ...

    @property
    def tabs(self) -> tuple[BrowserTab, ...]:
        """The open tabs, in order."""
        ...

    @property
    def current_index(self) -> int:
        """The index of the current tab."""
        ...

    def touch(self) -> None:
        """Mark the session used now (the least recently used is evicted first)."""
        ...

    def take_notes(self) -> list[str]:
        """What happened to the session since the last call, once."""
        ...

    async def tab(self) -> BrowserTab:
        """The current tab (a new one if none is open)."""
        ...

    async def new_tab(self) -> BrowserTab:
        """Open a tab and make it current."""
        ...

    def select(self, index: int) -> BrowserTab:
        """Make tab ``index`` current. Raises `IndexError` for no such tab."""
        ...

    async def close_tab(self, index: int) -> None:
        """Close tab ``index``. Raises `IndexError` for no such tab."""
        ...


@runtime_checkable
class ScopedBrowser(Protocol):
    """The ``browser`` seam of one call: the call's session, under the call's network policy."""

    @property
    def settings(self) -> BrowserLimits:
        """The backend's limits."""
        ...

    async def open(self) -> BrowserSessionView:
        """The session's context, opened when needed.

        Raises:
            ElsewhereError: another replica holds this session's browser.
            ConfigurationError: Chromium or Playwright is missing.
        """
        ...

    def existing(self) -> BrowserSessionView | None:
        """The session's context if it is open, without starting anything."""
        ...

    async def close(self) -> bool:
        """Close the session's context; whether one was open."""
        ...
