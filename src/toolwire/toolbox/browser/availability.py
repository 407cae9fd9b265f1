"""Whether the browser tools can run here: Playwright installed and a Chromium found."""

from __future__ import annotations

from toolwire.backends.browser import find_chromium, playwright_installed
from toolwire.capabilities.kinds.browser import browser
from toolwire.capabilities.kinds.fs_reach import fs_reach
from toolwire.tools import ToolAnnotations

__all__ = ["BROWSER_CAPS", "browser_annotations", "browser_available"]

BROWSER_CAPS = [browser(), fs_reach(read="from-personality", write="from-personality")]
"""What every browser tool declares: the call's session's browser context, and the
personality's file reach, where downloads are saved (``downloads/`` under the working dir)."""


def browser_available() -> bool:
    """Playwright for Python is installed and Chromium is found (`find_chromium`)."""
    return playwright_installed() and find_chromium() is not None


def browser_annotations(title: str, *, read_only: bool = False) -> ToolAnnotations:
    """The MCP hints of a browser tool: it reaches the open web."""
    return ToolAnnotations(title=title, read_only=read_only, open_world=True)
