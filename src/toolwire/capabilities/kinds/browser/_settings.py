"""`BrowserSettings`: where Chromium is, how it is started, and the limits of a session."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolwire.capabilities.kinds.network._ports import DEFAULT_PORTS
from toolwire.errors import ConfigurationError

if TYPE_CHECKING:
    from playwright.async_api import ProxySettings

__all__ = [
    "CHROMIUM_ENV",
    "CHROMIUM_NAMES",
    "BrowserSettings",
    "chromium_args",
    "find_chromium",
    "proxy_for",
]

CHROMIUM_ENV = "TOOLWIRE_CHROMIUM"
"""An environment variable naming the Chromium executable (wins over the search on PATH)."""
CHROMIUM_NAMES = ("chromium", "chromium-browser")
"""The executables looked for on PATH: Debian's and Ubuntu's names for Chromium."""

_QUIET_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-quic",
    "--metrics-recording-only",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
# Names are resolved by the egress proxy, never by Chromium: a request that somehow skipped the
# proxy finds no address. The proxy itself is reached by its literal loopback address.
_NO_RESOLUTION = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"


def proxy_for(port: int) -> ProxySettings:
    """Playwright's proxy setting for an egress listener on 127.0.0.1:``port``.

    ``<-loopback>`` removes Chromium's implicit bypass of loopback hosts, so ``localhost`` and
    ``127.0.0.1`` pages go through the proxy too (said here, not left to Playwright's default,
    which an environment variable can turn off).
    """
    return {"server": f"http://127.0.0.1:{port}", "bypass": "<-loopback>"}


def find_chromium(explicit: str | None = None) -> str | None:
    """The Chromium executable: ``explicit``, else ``$TOOLWIRE_CHROMIUM``, else the first of
    `CHROMIUM_NAMES` on PATH; ``None`` when there is none (or the one named is missing)."""
    named = explicit or os.environ.get(CHROMIUM_ENV) or None
    if named is not None:
        found = shutil.which(named)
        return os.path.abspath(found) if found else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_args(extra: tuple[str, ...] = ()) -> list[str]:
    """The command-line switches Chromium is started with (before Playwright's own).

    No background traffic (updates, sync, metrics), no QUIC (UDP would not go through the
    proxy), WebRTC only over the proxy, no local name resolution; ``--no-sandbox`` when running
    as root, where Chromium's own sandbox cannot start.
    """
    args = [*_QUIET_ARGS, _NO_RESOLUTION]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return [*args, *extra]


@dataclass(frozen=True, kw_only=True, slots=True)
class BrowserSettings:
    """How the shared Chromium runs and what one session may hold.

    Attributes:
        executable_path: The Chromium to run; ``None`` finds it (`find_chromium`). Playwright's
            own browser downloads are never used.
        headless: Run without a window (the only mode a server has).
        extra_args: More Chromium switches, after the built-in ones.
        viewport: The page size in CSS pixels, ``(width, height)``.
        launch_timeout_s: How long Chromium may take to start.
        navigation_timeout_s: The longest a navigation waits (the call's timeout may be
            shorter: it wins).
        action_timeout_s: The longest a click, a fill or a wait for an element takes.
        max_sessions: Browser contexts open at once; opening one more closes the one used
            least recently of its own principal (of the principal holding the most when it
            holds none: a credential never closes the context of one holding fewer).
        max_tabs: Tabs one session may have open.
        max_console_messages: Console messages kept per tab (the oldest are dropped).
        max_screenshot_bytes: The largest screenshot answered.
        max_download_bytes: The largest download saved (a larger one is refused).
        ports: Ports a page may reach without an allow pattern naming them (the egress
            proxy's rule; ``None``: any port).
    """

    executable_path: str | None = None
    headless: bool = True
    extra_args: tuple[str, ...] = ()
    viewport: tuple[int, int] = (1280, 800)
    launch_timeout_s: float = 60.0
    navigation_timeout_s: float = 30.0
    action_timeout_s: float = 10.0
    max_sessions: int = 16
    max_tabs: int = 8
    max_console_messages: int = 200
    max_screenshot_bytes: int = 8 * 1024 * 1024
    max_download_bytes: int = 64 * 1024 * 1024
    ports: tuple[int, ...] | None = tuple(sorted(DEFAULT_PORTS))

    def __post_init__(self) -> None:
        numbers = {
            "launch_timeout_s": self.launch_timeout_s,
            "navigation_timeout_s": self.navigation_timeout_s,
            "action_timeout_s": self.action_timeout_s,
            "max_sessions": self.max_sessions,
            "max_tabs": self.max_tabs,
            "max_console_messages": self.max_console_messages,
            "max_screenshot_bytes": self.max_screenshot_bytes,
            "max_download_bytes": self.max_download_bytes,
        }
        for name, value in numbers.items():
            if not value > 0:
                raise ConfigurationError(f"BrowserSettings.{name} must be positive, got {value}")
        if len(self.viewport) != 2 or min(self.viewport) < 1:
            raise ConfigurationError("BrowserSettings.viewport is (width, height), both >= 1")

    def executable(self) -> str | None:
        """The Chromium these settings run (`find_chromium` of ``executable_path``)."""
        return find_chromium(self.executable_path)
