"""The browser tools (toolset ``browser``): Debian's Chromium, driven by Playwright.

```python
from toolwire.capabilities.kinds.browser import BrowserBackend
from toolwire.toolbox.browser import browser_tools

backend = BrowserBackend()
registry = ToolRegistry(create_backends(kind_backends={"browser": backend}))
registry.add_cleanup(backend.aclose)
registry.register_all(browser_tools())
```

| tool | what |
| --- | --- |
| ``browser_navigate`` | open a URL (http, https, about:blank) and answer its snapshot |
| ``browser_snapshot`` | the accessibility tree with element refs (``[ref=e12]``) |
| ``browser_click``, ``browser_type``, ``browser_press_key``, ``browser_select_option`` | act on a
ref |
| ``browser_wait_for`` | a text to appear or go, or some seconds |
| ``browser_back`` | the previous page |
| ``browser_tabs`` | list, new, select, close |
| ``browser_screenshot`` | a PNG: its bytes in ``structured["image"]``, image content over MCP |
| ``browser_console_messages`` | the tab's console and uncaught errors |
| ``browser_close`` | close the session's browser context |

Each declares ``browser()``: the call's session's context in the shared Chromium, every request of
which goes through the egress proxy under the call's network policy; and the personality's file
reach, where downloads are saved (a ``downloads`` folder under the working directory). Without a
`BrowserBackend` they answer ``not_available``; without Chromium or Playwright they are hidden
(``is_available``). Everything they answer comes from the page: ``output_is_untrusted``.

Rooms: ``_availability.py`` (`browser_tool`; can the tools run here?), ``_common.py`` (the session,
an action, the answer's shape), ``_navigation.py``, ``_interaction.py``, ``_observation.py``,
``_tabs.py``, ``_downloads.py`` (the tools) and ``_snapshots.py`` (reducing a snapshot).
"""

from __future__ import annotations

from toolwire.toolbox.browser._availability import browser_available
from toolwire.toolbox.browser._interaction import (
    browser_click,
    browser_press_key,
    browser_select_option,
    browser_type,
)
from toolwire.toolbox.browser._navigation import browser_back, browser_navigate, browser_wait_for
from toolwire.toolbox.browser._observation import (
    browser_console_messages,
    browser_screenshot,
    browser_snapshot,
)
from toolwire.toolbox.browser._tabs import browser_close, browser_tabs
from toolwire.tools import Tool

__all__ = ["browser_available", "browser_tools"]


def browser_tools() -> list[Tool]:
    """The twelve browser tools (toolset ``browser``)."""
    return [
        browser_navigate,
        browser_snapshot,
        browser_click,
        browser_type,
        browser_press_key,
        browser_select_option,
        browser_wait_for,
        browser_back,
        browser_tabs,
        browser_screenshot,
        browser_console_messages,
        browser_close,
    ]
