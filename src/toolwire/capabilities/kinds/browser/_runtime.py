"""`BrowserRuntime`: the one Chromium process and the egress proxy its pages go through.

Both are owned by one asyncio task (the proxy's task group must be left by the task that
entered it, and a tool call's task ends long before the registry closes): `start` creates that
task and waits until Chromium runs; `aclose` tells it to stop and waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from toolwire.capabilities.kinds.browser._settings import BrowserSettings, chromium_args, proxy_for
from toolwire.capabilities.kinds.network._resolvers import Resolver
from toolwire.capabilities.kinds.process.sandbox.egress import EgressListener, EgressProxy
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import ConfigurationError

if TYPE_CHECKING:
    from playwright.async_api import Browser

__all__ = ["NOWHERE", "BrowserRuntime"]

logger = logging.getLogger("toolwire.browser")

NOWHERE = NetworkPolicy(deny=("*",))
"""The policy of the browser-wide proxy: Chromium's own traffic (and anything not sent by a
session's context) reaches nothing."""


class BrowserRuntime:
    """Chromium, started through Playwright with the system executable, behind an `EgressProxy`.

    Create it with `start`. Every browser context must be given a proxy listener of its own
    (`listen`); the browser-wide proxy refuses everything.
    """

    def __init__(self, settings: BrowserSettings, resolver: Resolver | None) -> None:
        self._settings = settings
        self._resolver = resolver
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._proxy: EgressProxy | None = None
        self._browser: Browser | None = None
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, settings: BrowserSettings, resolver: Resolver | None) -> BrowserRuntime:
        """Start the proxy and Chromium in their own task; return once Chromium runs.

        Raises:
            ConfigurationError: no Chromium executable, or Playwright is not installed.
            OSError: Chromium failed to start (its message says why).
        """
        executable = settings.executable()
        if executable is None:
            raise ConfigurationError(
                "the browser tools need Chromium: apt-get install chromium, or name the "
                "executable with BrowserSettings(executable_path=...) or $TOOLWIRE_CHROMIUM"
            )
        runtime = cls(settings, resolver)
        runtime._task = asyncio.get_running_loop().create_task(
            runtime._own(executable), name="toolwire-browser"
        )
        await asyncio.shield(runtime._ready)  # a cancelled caller leaves the start to finish
        return runtime

    @property
    def browser(self) -> Browser:
        """The running browser."""
        if self._browser is None:
            raise ConfigurationError("BrowserRuntime is not running")
        return self._browser

    @property
    def alive(self) -> bool:
        """Whether Chromium still runs and the runtime was not closed."""
        return (
            self._browser is not None and self._browser.is_connected() and not self._stop.is_set()
        )

    async def listen(self, policy: NetworkPolicy | None) -> EgressListener:
        """A new loopback proxy listener under ``policy``, for one browser context."""
        if self._proxy is None:
            raise ConfigurationError("BrowserRuntime is not running")
        return await self._proxy.serve_tcp(policy=policy, ports=self._settings.ports)

    async def aclose(self) -> None:
        """Close Chromium and the proxy, and wait for both."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.shield(self._task)

    async def _own(self, executable: str) -> None:
        try:
            from playwright.async_api import async_playwright
        except ModuleNotFoundError as exc:
            self._fail(
                ConfigurationError(
                    f"the browser tools need {exc.name}: pip install 'toolwire[browser]'"
                )
            )
            return
        try:
            async with EgressProxy(self._resolver) as proxy, async_playwright() as playwright:
                nowhere = await proxy.serve_tcp(policy=NOWHERE, ports=())
                port = nowhere.address[1] if nowhere.address is not None else 0
                self._browser = await playwright.chromium.launch(
                    executable_path=executable,
                    headless=self._settings.headless,
                    args=chromium_args(self._settings.extra_args),
                    proxy=proxy_for(port),
                    timeout=self._settings.launch_timeout_s * 1000,
                    handle_sigint=False,
                    handle_sigterm=False,
                    handle_sighup=False,
                )
                self._proxy = proxy
                self._ready.set_result(None)
                await self._stop.wait()
                with contextlib.suppress(Exception):
                    await self._browser.close()
        except Exception as exc:
            logger.warning("browser: Chromium failed (%s: %s)", type(exc).__name__, exc)
            self._fail(OSError(f"Chromium could not start: {exc}"))
        finally:
            self._proxy = None
            self._stop.set()
            if not self._ready.done():
                self._ready.set_exception(OSError("the browser was closed while starting"))

    def _fail(self, exc: Exception) -> None:
        if not self._ready.done():
            self._ready.set_exception(exc)
