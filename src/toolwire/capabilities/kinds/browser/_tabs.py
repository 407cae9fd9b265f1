"""`Tab`: one page of a session and what happened on it (console, blocked requests, refusals); the
`BrowserTab` of the seam."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from collections.abc import Awaitable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from toolwire.capabilities.kinds.browser.seam import (
    REFUSAL_HEADER_NAME,
    BlockedRequest,
    ConsoleEntry,
    navigation_refusal,
)

if TYPE_CHECKING:
    from playwright.async_api import ConsoleMessage, Dialog, Download, Frame, Page, Response

__all__ = ["Tab"]

_REF = re.compile(r"\[ref=((?:f\d+)?e\d+)\]")
_MAX_BLOCKED = 50
_MAX_NOTES = 20
_MAX_DOWNLOADS = 5
_ERROR_PAGE = "chrome-error:"  # Chromium's page for a failed load (a refused proxy tunnel, say)


class Tab:
    """One page: its console messages, blocked requests, notes and the refs of its snapshot.

    Args:
        page: The Playwright page.
        max_console: Console messages kept (the oldest go first).
    """

    def __init__(self, page: Page, max_console: int) -> None:
        self.page = page
        self.console: deque[ConsoleEntry] = deque(maxlen=max_console)
        self.blocked: deque[BlockedRequest] = deque(maxlen=_MAX_BLOCKED)
        self.notes: deque[str] = deque(maxlen=_MAX_NOTES)
        self.downloads: deque[Download] = deque()
        self.refs: frozenset[str] = frozenset()
        self._pending: set[asyncio.Task[None]] = set()
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)
        page.on("response", self._on_response)
        page.on("download", self._on_download)
        page.on("dialog", self._on_dialog)
        page.on("framenavigated", self._on_navigated)

    def remember_refs(self, snapshot: str, *, part: bool = False) -> None:
        """Keep the refs of the newest snapshot: only they may be acted on (``part``: a
        snapshot of one element, whose refs are added to the page's)."""
        found = frozenset(_REF.findall(snapshot))
        self.refs = self.refs | found if part else found

    def take_notes(self) -> list[str]:
        """What happened since the last call (downloads and dialogs refused, ...), once."""
        notes = list(self.notes)
        self.notes.clear()
        return notes

    def _on_console(self, message: ConsoleMessage) -> None:
        location = message.location or {}
        self.console.append(ConsoleEntry(message.type, message.text, str(location.get("url", ""))))

    def _on_page_error(self, error: Exception) -> None:
        self.console.append(ConsoleEntry("pageerror", str(error)))

    def _on_response(self, response: Response) -> None:
        code = response.headers.get(REFUSAL_HEADER_NAME)
        if code is None or response.status != 403:
            return
        try:
            host = urlsplit(response.url).netloc
        except ValueError:
            host = "?"
        self.blocked.append(BlockedRequest(host, code))

    def _on_download(self, download: Download) -> None:
        if len(self.downloads) >= _MAX_DOWNLOADS:
            name = download.suggested_filename
            self.notes.append(f"download of {name!r} refused ({_MAX_DOWNLOADS} already wait)")
            self.later(download.cancel())
            return
        self.downloads.append(download)  # the next answer saves it through the file seam

    def _on_dialog(self, dialog: Dialog) -> None:
        text = dialog.message[:200]
        self.notes.append(f"{dialog.type} dialog dismissed: {text!r}")
        self.later(dialog.dismiss())

    def _on_navigated(self, frame: Frame) -> None:
        url = frame.url
        if frame.parent_frame is not None or url.startswith(_ERROR_PAGE):
            return
        if navigation_refusal(url) is None:
            return
        self.notes.append(f"the page went to a refused URL ({url[:80]}); back to about:blank")
        self.later(self.page.goto("about:blank"))

    def later(self, pending: Awaitable[object]) -> None:
        """Run ``pending`` in the background (an event handler cannot wait), errors ignored."""
        task = asyncio.get_running_loop().create_task(_quietly(pending))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)


async def _quietly(pending: Awaitable[object]) -> None:
    with contextlib.suppress(Exception):
        await pending
