"""Fixtures: one local site, one Chromium and one registry of the browser tools per module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from browser_site import Site, require_chromium

from toolwire.capabilities.kinds.browser import BrowserBackend
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.registry import ToolRegistry
from toolwire.toolbox.browser import browser_tools


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop per module: Chromium starts once per module (slow on two cores)."""
    return "asyncio"


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """The site the pages are served from (reachable under the policy)."""
    served = Site().start()
    yield served
    served.stop()


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[Site]:
    """A second local site, on a port the policy does not allow: it must never be reached."""
    served = Site().start()
    yield served
    served.stop()


@pytest.fixture(scope="module")
def policy(site: Site) -> NetworkPolicy:
    """Loopback allowed (the test pages live there), but only the site's port."""
    return NetworkPolicy(allow=(f"127.0.0.1:{site.port}",), allow_private_urls=True)


@pytest.fixture(scope="module")
async def backend() -> AsyncIterator[BrowserBackend]:
    """The shared browser (one Chromium for the module)."""
    require_chromium()
    browser = BrowserBackend()
    yield browser
    await browser.aclose()


@pytest.fixture(scope="module")
async def browser_registry(
    backend: BrowserBackend, policy: NetworkPolicy
) -> AsyncIterator[ToolRegistry]:
    """The browser tools over ``backend``, under ``policy``."""
    backends = CapabilityBackends(
        processes=None, network_policy=policy, kind_backends={"browser": backend}
    )
    registry = ToolRegistry(backends=backends)
    registry.add_cleanup(backend.aclose)
    registry.register_all(browser_tools())
    yield registry
    await registry.aclose()
