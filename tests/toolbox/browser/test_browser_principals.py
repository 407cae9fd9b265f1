"""Browser contexts belong to the session and the credential: two credentials in one session
share no cookies, and a credential opening contexts at the cap closes its own least recently
used one, never the context of a credential holding fewer (real Chromium)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from browser_site import Site, require_chromium

from toolwire import Principal, ToolContext
from toolwire.capabilities.kinds.browser import BrowserBackend
from toolwire.capabilities.kinds.browser._settings import BrowserSettings
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.registry import ToolRegistry
from toolwire.results import Ok
from toolwire.toolbox.browser import browser_tools

pytestmark = pytest.mark.anyio

COOKIE = "<title>Set</title><script>document.cookie = 'sid=secret42; path=/';</script><p>set</p>"
ALICE = Principal.of_credential(issuer="toolwire", client="alice", subject="a1")
BOB = Principal.of_credential(issuer="toolwire", client="bob", subject="b1")


@pytest.fixture(scope="module", autouse=True)
def pages(site: Site) -> None:
    site.pages["/setcookie"] = COOKIE


@pytest.fixture
async def small_registry(
    policy: NetworkPolicy,
) -> AsyncIterator[tuple[ToolRegistry, BrowserBackend]]:
    """The browser tools over a Chromium that holds two contexts at once."""
    require_chromium()
    backend = BrowserBackend(BrowserSettings(max_sessions=2))
    backends = CapabilityBackends(
        processes=None, network_policy=policy, kind_backends={"browser": backend}
    )
    registry = ToolRegistry(backends=backends)
    registry.add_cleanup(backend.aclose)
    registry.register_all(browser_tools())
    yield registry, backend
    await registry.aclose()


async def _open(registry: ToolRegistry, principal: Principal, session: str, url: str) -> str:
    ctx = ToolContext(session_id=session, principal=principal)
    outcome = await registry.execute("browser_navigate", {"url": url}, ctx)
    assert isinstance(outcome.result, Ok), outcome.result
    return outcome.result.value


async def test_two_credentials_in_one_session_share_no_cookies(
    small_registry: tuple[ToolRegistry, BrowserBackend], site: Site
) -> None:
    registry, _ = small_registry
    await _open(registry, ALICE, "s1", site.url("/setcookie"))
    assert "sid=secret42" in await _open(registry, ALICE, "s1", site.url("/cookie"))
    assert "cookie: none" in await _open(registry, BOB, "s1", site.url("/cookie"))


async def test_a_credential_at_the_cap_closes_its_own_context_not_anothers(
    small_registry: tuple[ToolRegistry, BrowserBackend], site: Site
) -> None:
    registry, backend = small_registry
    await _open(registry, ALICE, "s1", site.url("/setcookie"))
    for session in ("b1", "b2", "b3"):  # past the cap of 2: bob's own contexts make room
        await _open(registry, BOB, session, site.url("/cookie"))
    assert backend.existing(ALICE.scoped("s1")) is not None
    assert "sid=secret42" in await _open(registry, ALICE, "s1", site.url("/cookie"))
    assert backend.existing(BOB.scoped("b1")) is None
