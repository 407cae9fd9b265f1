"""`BrowserSession`: one session's browser context, its tabs and its own proxy listener."""

from __future__ import annotations

import contextlib
import time
from collections import deque
from typing import TYPE_CHECKING

import anyio

from toolwire.capabilities.kinds.browser._settings import BrowserSettings, proxy_for
from toolwire.capabilities.kinds.browser._tabs import Tab
from toolwire.capabilities.seams import NetworkPolicy

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page

    from toolwire.capabilities.kinds.browser._runtime import BrowserRuntime
    from toolwire.capabilities.kinds.process.sandbox.egress import EgressListener

__all__ = ["BrowserSession"]


class BrowserSession:
    """A browser context of one session: cookies and storage seen by no other session.

    Every request of its pages goes to its own egress-proxy listener, under the session's
    network policy. Tools hold `lock` while they act, so one session's calls run one at a time.

    Attributes:
        session_id: The session it belongs to.
        policy: The network policy its proxy listener applies.
        lock: Held by a tool while it acts on the session.
        last_used: ``time.monotonic()`` of the last `touch` (the least recent is evicted).
    """

    def __init__(
        self,
        session_id: str,
        context: BrowserContext,
        listener: EgressListener,
        policy: NetworkPolicy | None,
        settings: BrowserSettings,
    ) -> None:
        self.session_id = session_id
        self.policy = policy
        self.lock = anyio.Lock()
        self.last_used = time.monotonic()
        self._context = context
        self._listener = listener
        self._settings = settings
        self._tabs: list[Tab] = []
        self._current = 0
        self._closed = False
        self._notes: deque[str] = deque(maxlen=20)
        context.on("page", self._on_page)

    @classmethod
    async def open(
        cls,
        runtime: BrowserRuntime,
        session_id: str,
        policy: NetworkPolicy | None,
        settings: BrowserSettings,
    ) -> BrowserSession:
        """A new context in ``runtime``'s browser, behind a new proxy listener under ``policy``."""
        listener = await runtime.listen(policy)
        port = listener.address[1] if listener.address is not None else 0
        try:
            width, height = settings.viewport
            context = await runtime.browser.new_context(
                proxy=proxy_for(port),
                accept_downloads=True,  # kept by Playwright until the tools save them
                service_workers="block",
                viewport={"width": width, "height": height},
            )
        except BaseException:
            with anyio.CancelScope(shield=True):
                await listener.aclose()
            raise
        context.set_default_timeout(settings.action_timeout_s * 1000)
        context.set_default_navigation_timeout(settings.navigation_timeout_s * 1000)
        return cls(session_id, context, listener, policy, settings)

    @property
    def settings(self) -> BrowserSettings:
        """The backend's settings (timeouts, limits)."""
        return self._settings

    @property
    def closed(self) -> bool:
        """Whether the context was closed."""
        return self._closed

    @property
    def tabs(self) -> tuple[Tab, ...]:
        """The open tabs, in the order they opened."""
        return tuple(self._tabs)

    @property
    def current_index(self) -> int:
        """The index of the tab the tools act on."""
        return self._current

    def touch(self) -> None:
        """Mark the session as just used."""
        self.last_used = time.monotonic()

    def take_notes(self) -> list[str]:
        """Tab events since the last call (tabs opened by pages, tabs refused), once."""
        notes = list(self._notes)
        self._notes.clear()
        return notes

    async def tab(self) -> Tab:
        """The current tab; a new blank one when none is open."""
        if not self._tabs:
            return await self.new_tab()
        return self._tabs[self._current]

    async def new_tab(self) -> Tab:
        """Open a blank tab and make it the current one.

        Raises:
            ValueError: the session already has `BrowserSettings.max_tabs` tabs.
        """
        if len(self._tabs) >= self._settings.max_tabs:
            raise ValueError(
                f"this session has {len(self._tabs)} tabs open, the most it may have; "
                "close one with browser_tabs(action='close', index=...)"
            )
        page = await self._context.new_page()
        tab = self._track(page)
        self._current = self._tabs.index(tab)
        return tab

    def select(self, index: int) -> Tab:
        """Make tab ``index`` the current one.

        Raises:
            IndexError: no tab has that index.
        """
        if not 0 <= index < len(self._tabs):
            raise IndexError(f"no tab {index}; the tabs are 0 to {len(self._tabs) - 1}")
        self._current = index
        return self._tabs[index]

    async def close_tab(self, index: int) -> None:
        """Close tab ``index`` (the current one moves to a neighbour).

        Raises:
            IndexError: no tab has that index.
        """
        tab = self.select(index)
        await tab.page.close()
        self._forget(tab.page)

    async def aclose(self) -> None:
        """Close the context (every tab) and its proxy listener."""
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(Exception):  # the browser may be gone already
                await self._context.close()
            await self._listener.aclose()

    def _on_page(self, page: Page) -> None:
        self._track(page)

    def _track(self, page: Page) -> Tab:
        for tab in self._tabs:
            if tab.page is page:
                return tab
        tab = Tab(page, self._settings.max_console_messages)
        self._tabs.append(tab)
        page.on("close", self._forget)
        if len(self._tabs) > self._settings.max_tabs:
            self._notes.append("a page opened a tab beyond the limit; it was closed")
            tab.later(page.close())
        elif len(self._tabs) > 1:
            self._notes.append(f"tab {len(self._tabs) - 1} opened; browser_tabs lists the tabs")
        return tab

    def _forget(self, page: Page) -> None:
        for index, tab in enumerate(self._tabs):
            if tab.page is page:
                del self._tabs[index]
                if self._current > index or self._current >= len(self._tabs):
                    self._current = max(0, self._current - 1)
                return
