"""What every connection of one listener shares: its policy, the resolver, the upstream pool."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolwire.capabilities.kinds.network._policy import CheckedDestination, check_destination
from toolwire.capabilities.kinds.network._resolvers import Resolver
from toolwire.capabilities.kinds.network._transport import PinnedTransport
from toolwire.capabilities.kinds.network._urls import Destination
from toolwire.capabilities.kinds.process.sandbox.egress._limits import EgressLimits
from toolwire.capabilities.seams import NetworkPolicy

__all__ = ["ListenerContext"]


@dataclass(kw_only=True, slots=True)
class ListenerContext:
    """One listener's policy and the proxy's shared parts.

    Attributes:
        name: How the listener appears in the log (its socket path or ``host:port``).
        policy: The network policy every request is checked against.
        allowed_hosts: Host patterns every request must also match (a tool's declaration);
            ``None`` skips that check.
        ports: Ports reachable without a pattern naming them; ``None`` allows any port.
        resolver: Name resolution (asked once per request; the answer is pinned).
        transport: The pinned transport forwarded requests go through.
        limits: Header size, timeouts, connections.
        active: Client connections being served now.
    """

    name: str
    policy: NetworkPolicy
    allowed_hosts: tuple[str, ...] | None
    ports: frozenset[int] | None
    resolver: Resolver
    transport: PinnedTransport
    limits: EgressLimits
    active: int = field(default=0)

    async def check(self, destination: Destination) -> CheckedDestination:
        """Apply the shared network policy to ``destination`` (one DNS lookup, pinned).

        Raises:
            PolicyRefusal: the destination is refused; its code and reason say why.
        """
        return await check_destination(
            destination,
            self.policy,
            self.resolver,
            allowed_hosts=self.allowed_hosts,
            ports=self.ports,
        )
