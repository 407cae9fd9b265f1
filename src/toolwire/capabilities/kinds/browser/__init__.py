"""The browser backend: Debian's Chromium driven by Playwright, every request through the
egress proxy.

```python
from toolwire.capabilities.kinds.browser import BrowserBackend, BrowserSettings

backend = BrowserBackend(BrowserSettings(navigation_timeout_s=20))
```

One Chromium process is shared and started on first use; each session gets its own browser context
(cookies and storage never shared) with its own egress-proxy listener applying the session's
`NetworkPolicy` (`toolwire.capabilities.kinds.process.sandbox.egress`). The browser-wide proxy
refuses everything, so nothing Chromium sends on its own reaches the network. Playwright is imported
only when Chromium starts (``pip install 'toolwire[browser]'``); no browser is downloaded:
`find_chromium` finds the system's. See ``docs/toolbox.md`` ("browser").

Rooms: ``kind.py`` (declaration and row), ``seam.py`` (`ScopedBrowser`, the session and tab
protocols a tool sees, which URLs a page may open), ``_settings.py`` (`BrowserSettings`),
``_runtime.py`` (the one Chromium and its egress proxy), ``backend.py`` (`BrowserBackend`),
``_session.py`` (`BrowserSession`: one context, its tabs, its proxy listener), ``_tabs.py``
(`Tab`: one page and what happened on it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.browser._session import BrowserSession
    from toolwire.capabilities.kinds.browser._settings import (
        CHROMIUM_ENV,
        CHROMIUM_NAMES,
        BrowserSettings,
        chromium_args,
        find_chromium,
    )
    from toolwire.capabilities.kinds.browser._tabs import Tab
    from toolwire.capabilities.kinds.browser.backend import (
        BrowserBackend,
        SessionBrowser,
        playwright_installed,
    )
    from toolwire.capabilities.kinds.browser.kind import (
        BROWSER,
        BrowserCapability,
        browser,
    )
    from toolwire.capabilities.kinds.browser.seam import (
        ALLOWED_SCHEMES,
        REFUSAL_HEADER_NAME,
        BlockedRequest,
        BrowserLimits,
        BrowserSessionView,
        BrowserTab,
        ConsoleEntry,
        ScopedBrowser,
        navigation_refusal,
    )

_LAZY = {
    "BROWSER": "toolwire.capabilities.kinds.browser.kind",
    "BrowserCapability": "toolwire.capabilities.kinds.browser.kind",
    "browser": "toolwire.capabilities.kinds.browser.kind",
    "ALLOWED_SCHEMES": "toolwire.capabilities.kinds.browser.seam",
    "BlockedRequest": "toolwire.capabilities.kinds.browser.seam",
    "BrowserLimits": "toolwire.capabilities.kinds.browser.seam",
    "BrowserSessionView": "toolwire.capabilities.kinds.browser.seam",
    "BrowserTab": "toolwire.capabilities.kinds.browser.seam",
    "REFUSAL_HEADER_NAME": "toolwire.capabilities.kinds.browser.seam",
    "ScopedBrowser": "toolwire.capabilities.kinds.browser.seam",
    "BrowserBackend": "toolwire.capabilities.kinds.browser.backend",
    "BrowserSession": "toolwire.capabilities.kinds.browser._session",
    "BrowserSettings": "toolwire.capabilities.kinds.browser._settings",
    "CHROMIUM_ENV": "toolwire.capabilities.kinds.browser._settings",
    "CHROMIUM_NAMES": "toolwire.capabilities.kinds.browser._settings",
    "ConsoleEntry": "toolwire.capabilities.kinds.browser.seam",
    "SessionBrowser": "toolwire.capabilities.kinds.browser.backend",
    "Tab": "toolwire.capabilities.kinds.browser._tabs",
    "chromium_args": "toolwire.capabilities.kinds.browser._settings",
    "find_chromium": "toolwire.capabilities.kinds.browser._settings",
    "navigation_refusal": "toolwire.capabilities.kinds.browser.seam",
    "playwright_installed": "toolwire.capabilities.kinds.browser.backend",
}


__all__ = [
    "ALLOWED_SCHEMES",
    "BROWSER",
    "CHROMIUM_ENV",
    "CHROMIUM_NAMES",
    "REFUSAL_HEADER_NAME",
    "BlockedRequest",
    "BrowserBackend",
    "BrowserCapability",
    "BrowserLimits",
    "BrowserSession",
    "BrowserSessionView",
    "BrowserSettings",
    "BrowserTab",
    "ConsoleEntry",
    "ScopedBrowser",
    "SessionBrowser",
    "Tab",
    "browser",
    "chromium_args",
    "find_chromium",
    "navigation_refusal",
    "playwright_installed",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
