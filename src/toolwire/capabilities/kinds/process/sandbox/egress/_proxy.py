"""`EgressProxy`: the HTTP forward and ``CONNECT`` proxy sandboxed processes reach the network by.

```python
async with EgressProxy() as proxy:
    listener = await proxy.serve_unix("/run/t/egress.sock", NetworkPolicy(allow=("pypi.org",)))
    ...  # the sandbox binds the socket in and runs the relay to it
    await listener.aclose()
```

Each listener has its own policy (one per sandboxed call); they share the resolver and the
upstream connection pool. Every request is checked by the same code as `SafeFetcher`
(`check_destination`): canonical host, declared hosts, metadata, private addresses, the
deny and allow lists, ports, one DNS lookup whose answers are all checked, and a connection
to those addresses only. See ``docs/sandbox.md`` ("The egress proxy").
"""

from __future__ import annotations

import ipaddress
import ssl
from collections.abc import Collection
from types import TracebackType

import anyio
import httpx
from anyio.abc import SocketAttribute, SocketListener, TaskGroup

from toolwire.capabilities.kinds.network._ports import DEFAULT_PORTS
from toolwire.capabilities.kinds.network._resolvers import Resolver, SystemResolver
from toolwire.capabilities.kinds.network._transport import PinnedTransport
from toolwire.capabilities.kinds.process.sandbox.egress._context import ListenerContext
from toolwire.capabilities.kinds.process.sandbox.egress._limits import EgressLimits
from toolwire.capabilities.kinds.process.sandbox.egress._listeners import EgressListener
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import ConfigurationError

__all__ = ["EgressProxy"]


class EgressProxy:
    """An HTTP/1.1 forward and ``CONNECT`` proxy applying a `NetworkPolicy` per listener.

    An async context manager: it owns its listeners, and leaving it closes them, every open
    connection and tunnel, and the upstream connection pool.

    Args:
        resolver: Name resolution (asked once per request, its answer pinned); the system
            resolver by default.
        limits: Header size, timeouts and connections per listener.
        ssl_context: Verifies upstream servers for absolute-form ``https://`` requests (a
            ``CONNECT`` tunnel carries the client's own TLS); certifi's CAs by default.
    """

    def __init__(
        self,
        resolver: Resolver | None = None,
        *,
        limits: EgressLimits | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._resolver = resolver or SystemResolver()
        self._limits = limits or EgressLimits()
        self._ssl_context = ssl_context
        self._transport: PinnedTransport | None = None
        self._group: TaskGroup | None = None
        self._listeners: list[EgressListener] = []

    @property
    def listeners(self) -> tuple[EgressListener, ...]:
        """The listeners still open."""
        return tuple(listener for listener in self._listeners if not listener.closed)

    async def __aenter__(self) -> EgressProxy:
        if self._group is not None:
            raise ConfigurationError("EgressProxy is already running; enter it once")
        context = self._ssl_context or httpx.create_ssl_context()
        self._transport = PinnedTransport(ssl_context=context)
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        group, transport = self._group, self._transport
        self._group = self._transport = None
        self._listeners.clear()
        if group is None:
            return
        group.cancel_scope.cancel()
        try:  # the block's own exception, if any, propagates as it is (not in a group)
            await group.__aexit__(None, None, None)
        finally:
            if transport is not None:
                with anyio.CancelScope(shield=True):
                    await transport.aclose()

    def _context(
        self,
        name: str,
        policy: NetworkPolicy | None,
        allowed_hosts: Collection[str] | None,
        ports: Collection[int] | None,
    ) -> tuple[TaskGroup, ListenerContext]:
        if self._group is None or self._transport is None:
            raise ConfigurationError(
                "EgressProxy is not running: use it as 'async with EgressProxy() as proxy:'"
            )
        if policy is not None and not isinstance(policy, NetworkPolicy):
            raise ConfigurationError(
                f"EgressProxy: policy must be a NetworkPolicy, not {type(policy).__name__}"
            )
        ctx = ListenerContext(
            name=name,
            policy=policy or NetworkPolicy(),
            allowed_hosts=tuple(allowed_hosts) if allowed_hosts is not None else None,
            ports=frozenset(ports) if ports is not None else None,
            resolver=self._resolver,
            transport=self._transport,
            limits=self._limits,
        )
        return self._group, ctx

    async def serve_unix(
        self,
        path: str,
        policy: NetworkPolicy | None,
        *,
        allowed_hosts: Collection[str] | None = None,
        ports: Collection[int] | None = DEFAULT_PORTS,
        mode: int = 0o600,
    ) -> EgressListener:
        """Accept clients on a new Unix socket at ``path``, under ``policy``.

        Args:
            path: Where to create the socket (it must not exist).
            policy: The policy for this listener's requests; ``None`` means every public
                host (like `SafeFetcher`). An empty ``allow`` list also means every public
                host: to reach nothing, do not start a listener.
            allowed_hosts: Patterns every request must also match (a tool's declared hosts).
            ports: Ports reachable without a pattern naming them (``None``: any port).
            mode: The socket file's permissions (only its owner may connect by default).

        Raises:
            ConfigurationError: the proxy is not running, or ``policy`` is not a policy.
            OSError: the socket cannot be created (the path exists, say).
        """
        group, ctx = self._context(path, policy, allowed_hosts, ports)
        listener = await anyio.create_unix_listener(path, mode=mode)
        return await self._start(group, EgressListener(listener, ctx, path=path))

    async def serve_tcp(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        policy: NetworkPolicy | None = None,
        *,
        allowed_hosts: Collection[str] | None = None,
        ports: Collection[int] | None = DEFAULT_PORTS,
    ) -> EgressListener:
        """Accept clients on a loopback TCP port (for a browser), under ``policy``.

        Args:
            host: A loopback address (``127.0.0.1`` or ``::1``); anything else would open
                the proxy to the network.
            port: The port; ``0`` picks a free one (read it from ``listener.address``).
            policy: As for `serve_unix`.
            allowed_hosts: As for `serve_unix`.
            ports: As for `serve_unix`.

        Raises:
            ConfigurationError: the proxy is not running, or ``host`` is not loopback.
            OSError: the port cannot be bound.
        """
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ConfigurationError(
                f"EgressProxy.serve_tcp: host {host!r} is not a loopback address; "
                "use '127.0.0.1' or '::1' (a proxy on another address serves the network)"
            )
        group, ctx = self._context(f"{host}:{port}", policy, allowed_hosts, ports)
        multi = await anyio.create_tcp_listener(local_host=host, local_port=port)
        socket_listener = multi.listeners[0]
        if not isinstance(socket_listener, SocketListener):  # what anyio returns for TCP
            await multi.aclose()
            raise ConfigurationError(f"EgressProxy.serve_tcp: cannot listen on {host}:{port}")
        bound = socket_listener.extra(SocketAttribute.local_address)
        address = (str(bound[0]), int(bound[1]))
        ctx.name = f"{address[0]}:{address[1]}"
        return await self._start(group, EgressListener(socket_listener, ctx, address=address))

    async def _start(self, group: TaskGroup, listener: EgressListener) -> EgressListener:
        await group.start(listener.run)
        self._listeners = [*self.listeners, listener]
        return listener
