"""What every browser tool declares (`browser_tool`), and whether the browser tools can run
here: Playwright installed and a Chromium found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.capabilities.kinds.browser import find_chromium, playwright_installed
from toolwire.capabilities.kinds.browser.kind import browser
from toolwire.capabilities.kinds.fs_reach.kind import fs_reach
from toolwire.decorator import tool
from toolwire.tool_options import ToolOptions
from toolwire.tools import Tool, ToolAnnotations

__all__ = ["BROWSER_CAPS", "browser_annotations", "browser_available", "browser_tool"]

BROWSER_CAPS = [browser(), fs_reach(read="from-personality", write="from-personality")]
"""What every browser tool declares: the call's session's browser context, and the
personality's file reach, where downloads are saved (``downloads/`` under the working dir)."""


def browser_available() -> bool:
    """Playwright for Python is installed and Chromium is found (`find_chromium`)."""
    return playwright_installed() and find_chromium() is not None


def browser_annotations(title: str, *, read_only: bool = False) -> ToolAnnotations:
    """The MCP hints of a browser tool: it reaches the open web."""
    return ToolAnnotations(title=title, read_only=read_only, open_world=True)


def browser_tool(title: str, *, read_only: bool = False) -> Callable[[Callable[..., Any]], Tool]:
    """``@tool`` for a browser tool (toolset ``browser``): `BROWSER_CAPS`, untrusted output,
    available where `browser_available`, and the hints of `browser_annotations`."""
    return tool(
        capabilities=BROWSER_CAPS,
        options=ToolOptions(
            toolset="browser",
            output_is_untrusted=True,
            is_available=browser_available,
            annotations=browser_annotations(title, read_only=read_only),
        ),
    )
