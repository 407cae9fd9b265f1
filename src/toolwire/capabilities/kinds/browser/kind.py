"""The ``browser`` kind: the call's session in the shared Chromium, through ``ctx.seam(BROWSER)``.

The seam is a `ScopedBrowser` (``seam.py``; `SessionBrowser` implements it): the context of the
call's session and principal (a context, its cookies and tabs, are never shared by two credentials:
`toolwire.principals`), whose every request goes through the egress proxy under the call's network
policy (the scope's, else the backends'). Its backend is
``CapabilityBackends.kind_backends["browser"]``, a `BrowserBackend`.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution
from toolwire.capabilities.kinds.browser.backend import BrowserBackend
from toolwire.capabilities.kinds.browser.seam import ScopedBrowser

__all__ = ["BROWSER", "BrowserCapability", "ScopedBrowser", "browser"]


@dataclass(frozen=True, kw_only=True, slots=True)
class BrowserCapability(Capability):
    """A browser context of the call's session (its network reach: the call's policy)."""


def browser() -> BrowserCapability:
    """Declare the call's session's browser context."""
    return BrowserCapability()


def _backend(call: Resolution) -> BrowserBackend | None:
    found = call.backends.kind_backends.get("browser")
    return found if isinstance(found, BrowserBackend) else None


def _resolve(declared: BrowserCapability, call: Resolution) -> ScopedBrowser | None:
    backend = _backend(call)
    if backend is None:
        return None
    policy = call.scope.network_policy or call.backends.network_policy
    return backend.scoped(call.scope.principal.scoped(call.scope.session_id), policy)


BROWSER: CapabilityKind[BrowserCapability, ScopedBrowser] = CapabilityKind(
    name="browser",
    declaration=BrowserCapability,
    resolve=_resolve,
    backend=lambda backends: backends.kind_backends.get("browser"),
    setup_hint="give CapabilityBackends kind_backends={'browser': BrowserBackend()} "
    "(pip install 'toolwire[browser]'; apt-get install chromium)",
)
"""``browser()`` → ``ctx.seam(BROWSER)``; needs ``kind_backends["browser"]``."""
