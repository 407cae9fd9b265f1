"""The browser backend: Debian's Chromium driven by Playwright, every request through the
egress proxy.

```python
from toolwire.backends.browser import BrowserBackend, BrowserSettings

backend = BrowserBackend(BrowserSettings(navigation_timeout_s=20))
```

One Chromium process is shared and started on first use; each session gets its own browser
context (cookies and storage never shared) with its own egress-proxy listener applying the
session's `NetworkPolicy` (`toolwire.sandbox.egress`). The browser-wide proxy refuses
everything, so nothing Chromium sends on its own reaches the network. Playwright is imported
only when Chromium starts (``pip install 'toolwire[browser]'``); no browser is downloaded:
`find_chromium` finds the system's. See ``docs/toolbox.md`` ("browser").
"""

from __future__ import annotations

from toolwire.backends.browser.backend import BrowserBackend, SessionBrowser, playwright_installed
from toolwire.backends.browser.schemes import ALLOWED_SCHEMES, navigation_refusal
from toolwire.backends.browser.session import BrowserSession
from toolwire.backends.browser.settings import (
    CHROMIUM_ENV,
    CHROMIUM_NAMES,
    BrowserSettings,
    chromium_args,
    find_chromium,
)
from toolwire.backends.browser.tabs import BlockedRequest, ConsoleEntry, Tab

__all__ = [
    "ALLOWED_SCHEMES",
    "CHROMIUM_ENV",
    "CHROMIUM_NAMES",
    "BlockedRequest",
    "BrowserBackend",
    "BrowserSession",
    "BrowserSettings",
    "ConsoleEntry",
    "SessionBrowser",
    "Tab",
    "chromium_args",
    "find_chromium",
    "navigation_refusal",
    "playwright_installed",
]
