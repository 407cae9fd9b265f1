"""`BrowserBackend`: the shared Chromium and one browser context per session.

```python
backend = BrowserBackend()  # nothing starts until a tool first needs the browser
backends = create_backends(kind_backends={"browser": backend})
async with ToolRegistry(backends) as registry:
    registry.add_cleanup(backend.aclose)  # closing the registry closes Chromium
    registry.register_all(browser_tools())
```
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections import Counter
from typing import TYPE_CHECKING

from toolwire.capabilities.kinds.browser._session import BrowserSession
from toolwire.capabilities.kinds.browser._settings import BrowserSettings
from toolwire.capabilities.kinds.network._resolvers import Resolver
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import ConfigurationError, StoreError
from toolwire.principals import PRINCIPAL_SEPARATOR

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.browser._runtime import BrowserRuntime
    from toolwire.replicas.claims import SessionClaims

__all__ = ["BrowserBackend", "SessionBrowser", "playwright_installed"]


logger = logging.getLogger("toolwire.capabilities.kinds.browser")


def playwright_installed() -> bool:
    """Whether Playwright for Python is importable (``pip install 'toolwire[browser]'``)."""
    return importlib.util.find_spec("playwright") is not None


class BrowserBackend:
    """One Chromium process for every session, started on first use; one context per session.

    Args:
        settings: Where Chromium is and the limits; the defaults find Debian's Chromium.
        resolver: How the egress proxy resolves names (the system's by default).
    """

    def __init__(
        self, settings: BrowserSettings | None = None, *, resolver: Resolver | None = None
    ) -> None:
        self.settings = settings or BrowserSettings()
        self._resolver = resolver
        self._runtime: BrowserRuntime | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sessions: dict[str, BrowserSession] = {}
        self._lock = asyncio.Lock()
        self._closed = False
        self.claims: SessionClaims | None = None
        """With replicas: which replica holds each session's browser (set before first use)."""

    @property
    def available(self) -> bool:
        """Whether the browser can run here: Playwright installed and Chromium found."""
        return playwright_installed() and self.settings.executable() is not None

    @property
    def started(self) -> bool:
        """Whether Chromium is running."""
        return self._runtime is not None and self._runtime.alive

    def sessions(self) -> tuple[str, ...]:
        """The sessions with an open context."""
        return tuple(sid for sid, s in self._sessions.items() if not s.closed)

    def scoped(self, session_id: str, policy: NetworkPolicy | None) -> SessionBrowser:
        """The seam of one call: this backend, seen by ``session_id`` under ``policy``."""
        return SessionBrowser(self, session_id, policy)

    async def session(self, session_id: str, policy: NetworkPolicy | None) -> BrowserSession:
        """The context of ``session_id``, opened (and Chromium started) when needed.

        A session whose policy changed since its context opened gets a new context.

        Raises:
            ConfigurationError: no Chromium or Playwright, not on asyncio, the backend is
                closed, or it is used from another event loop than the one that started Chromium.
            OSError: Chromium failed to start.
            toolwire.replicas.ElsewhereError: with replicas, another live replica holds the
                session's browser.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError as exc:  # trio, say: Playwright speaks asyncio only
            raise ConfigurationError(
                "the browser tools need an asyncio event loop (Playwright runs on asyncio)"
            ) from exc
        async with self._lock:
            if self.claims is not None and session_id not in self._sessions:
                await self.claims.claim(session_id)  # replicas: not another live one's
            runtime = await self._running()
            found = self._sessions.get(session_id)
            if found is not None and not found.closed and found.policy == policy:
                found.touch()
                return found
            if found is not None:
                del self._sessions[session_id]
                await found.aclose()
            await self._evict(session_id)
            opened = await BrowserSession.open(runtime, session_id, policy, self.settings)
            self._sessions[session_id] = opened
            return opened

    def existing(self, session_id: str) -> BrowserSession | None:
        """The open context of ``session_id``, or ``None`` (nothing is started)."""
        found = self._sessions.get(session_id)
        return found if found is not None and not found.closed else None

    async def close_session(self, session_id: str) -> bool:
        """Close the context of ``session_id``; whether it had one."""
        found = self._sessions.pop(session_id, None)
        if found is None:
            return False
        await found.aclose()
        if self.claims is not None:  # another replica may open this session's browser now
            try:
                await self.claims.release(session_id)
            except StoreError as exc:
                logger.warning("browser of %s: could not release its claim: %s", session_id, exc)
        return True

    async def aclose(self) -> None:
        """Close every context, Chromium and the proxy. Closing twice is harmless."""
        self._closed = True
        sessions, self._sessions = list(self._sessions.values()), {}
        for found in sessions:
            await found.aclose()
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.aclose()

    async def _running(self) -> BrowserRuntime:
        if self._closed:
            raise ConfigurationError("the BrowserBackend was closed; create a new one")
        loop = asyncio.get_running_loop()
        if self._loop is not None and self._loop is not loop and self.started:
            raise ConfigurationError(
                "the BrowserBackend runs Chromium on another event loop; use one backend per loop"
            )
        if self._runtime is not None and self._runtime.alive:
            return self._runtime
        if self._runtime is not None:  # Chromium died: its contexts went with it
            for found in self._sessions.values():
                await found.aclose()
            self._sessions.clear()
            await self._runtime.aclose()
        from toolwire.capabilities.kinds.browser._runtime import (
            BrowserRuntime,  # httpx: on first use
        )

        self._runtime = await BrowserRuntime.start(self.settings, self._resolver)
        self._loop = loop
        return self._runtime

    async def _evict(self, newcomer: str) -> None:
        """Make room for ``newcomer``'s context at the cap: close the least recently used
        context of its own principal, else of the principal holding the most (so a credential
        opening contexts closes its own, never one of a credential holding fewer)."""
        open_sessions = [s for s in self._sessions.values() if not s.closed]
        if len(open_sessions) < self.settings.max_sessions:
            return
        held = Counter(_principal_of(s.session_id) for s in open_sessions)
        own = _principal_of(newcomer)
        owner = own if held[own] else max(held, key=lambda p: held[p])
        theirs = [s for s in open_sessions if _principal_of(s.session_id) == owner]
        idle = [s for s in theirs if not s.lock.locked()] or theirs
        oldest = min(idle, key=lambda s: s.last_used)
        await self.close_session(oldest.session_id)


def _principal_of(session_key: str) -> str:
    """The principal a context key names (`toolwire.principals.Principal.scoped`: ``<session
    id>~p-…``), ``""`` for `toolwire.principals.LOCAL`."""
    _, sep, principal = session_key.rpartition(PRINCIPAL_SEPARATOR)
    return principal if sep and principal.startswith("p-") else ""


class SessionBrowser:
    """The ``browser`` seam of one call: the call's session, under the call's network policy."""

    def __init__(
        self, backend: BrowserBackend, session_id: str, policy: NetworkPolicy | None
    ) -> None:
        self._backend = backend
        self.session_id = session_id
        self.policy = policy

    @property
    def settings(self) -> BrowserSettings:
        """The backend's settings (timeouts, limits)."""
        return self._backend.settings

    async def open(self) -> BrowserSession:
        """The session's context, opened when needed (see `BrowserBackend.session`)."""
        return await self._backend.session(self.session_id, self.policy)

    def existing(self) -> BrowserSession | None:
        """The session's context if it is open, without starting anything."""
        found = self._backend.existing(self.session_id)
        return found if found is not None and found.policy == self.policy else None

    async def close(self) -> bool:
        """Close the session's context; whether it had one."""
        return await self._backend.close_session(self.session_id)
