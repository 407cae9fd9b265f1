"""`EgressGateway`: a sandbox backend's egress proxy, in an event loop of its own.

A background process outlives the call (and the task) that started it, so the proxy that is
its only way out cannot live in that task: the gateway runs one `EgressProxy` in a thread with
its own event loop (an anyio blocking portal), started on first use and stopped by `aclose`.
Each sandbox with network gets its own listener (a Unix socket in the backend's private
directory, under that call's policy and declared hosts), closed when the sandbox ends.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from anyio.from_thread import BlockingPortal, start_blocking_portal

from toolwire.capabilities.kinds.process.sandbox._confinement import NetworkReach

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.network._resolvers import Resolver
    from toolwire.capabilities.kinds.process.sandbox.egress import EgressListener, EgressProxy

__all__ = ["EgressGateway", "EgressLink"]


class EgressLink:
    """One sandbox's listener: its socket's ``path``; `close` it when the sandbox ends."""

    def __init__(self, path: str, listener: EgressListener, portal: BlockingPortal) -> None:
        self.path = path
        self._listener = listener
        self._portal = portal
        self._closed = False

    def close(self) -> None:
        """Stop listening and remove the socket (blocking; call it off the event loop)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(RuntimeError):  # the portal is already stopped
            self._portal.call(self._listener.aclose)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


class EgressGateway:
    """The egress proxy of one backend (see the module docstring).

    Args:
        resolver: Name resolution for the proxy (the system resolver by default).
    """

    def __init__(self, resolver: Resolver | None = None) -> None:
        self._resolver = resolver
        self._lock = threading.Lock()
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._proxy_cm: AbstractContextManager[Any] | None = None
        self._proxy: EgressProxy | None = None
        self._closed = False

    def _running(self) -> tuple[BlockingPortal, EgressProxy]:
        with self._lock:
            if self._closed:
                raise RuntimeError("the sandbox backend is closed")
            if self._portal is None or self._proxy is None:
                from toolwire.capabilities.kinds.process.sandbox.egress import EgressProxy

                self._portal_cm = start_blocking_portal()
                self._portal = self._portal_cm.__enter__()
                self._proxy_cm = self._portal.wrap_async_context_manager(
                    EgressProxy(self._resolver)
                )
                self._proxy = self._proxy_cm.__enter__()
            return self._portal, self._proxy

    def open_blocking(self, reach: NetworkReach, socket_dir: str) -> EgressLink:
        """`open`, from a worker thread (it blocks until the listener is up).

        Raises:
            RuntimeError: the gateway is closed.
            OSError: the socket could not be created.
        """
        portal, proxy = self._running()
        path = os.path.join(socket_dir, f"egress-{uuid.uuid4().hex[:16]}.sock")
        listener = portal.call(
            lambda: proxy.serve_unix(path, reach.policy, allowed_hosts=reach.allowed_hosts)
        )
        return EgressLink(path, listener, portal)

    async def open(self, reach: NetworkReach, socket_dir: str) -> EgressLink:
        """A new listener for one sandbox, under ``reach``, its socket in ``socket_dir`` (a
        private directory: mode 0700).

        Raises:
            RuntimeError: the gateway is closed.
            OSError: the socket could not be created.
        """
        return await anyio.to_thread.run_sync(self.open_blocking, reach, socket_dir)

    def _close(self) -> None:
        with self._lock:
            self._closed = True
            proxy_cm, portal_cm = self._proxy_cm, self._portal_cm
            self._proxy_cm = self._portal_cm = None
            self._proxy = self._portal = None
        if proxy_cm is not None:
            proxy_cm.__exit__(None, None, None)
        if portal_cm is not None:
            portal_cm.__exit__(None, None, None)

    async def aclose(self) -> None:
        """Stop the proxy and its thread (every listener closes); idempotent."""
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._close)
