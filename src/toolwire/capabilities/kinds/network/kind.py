"""The ``network`` kind: HTTP(S) to the declared hosts, through ``ctx.scoped_fetch``.

Host patterns: an exact host, ``*.example.com`` (subdomains only, **not** ``example.com``
itself), or ``*`` ("whatever the personality's network policy allows"). The seam is a
``HostScopedFetch`` over the backends' `SafeFetcher`, narrowed by the call's network policy
(see ``docs/network.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from toolwire.capabilities.kind import Capability, CapabilityKind, Resolution, non_empty_strings
from toolwire.capabilities.kinds.network.seam import FetchResponse, NetworkPolicy, ScopedFetch
from toolwire.errors import ToolDefinitionError

__all__ = [
    "NETWORK",
    "FetchResponse",
    "NetworkCapability",
    "NetworkPolicy",
    "ScopedFetch",
    "network",
]

_HOST_PATTERN = re.compile(
    r"^(\*|(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?|\[[0-9A-Fa-f:.]+\])$"
)


@dataclass(frozen=True, kw_only=True, slots=True)
class NetworkCapability(Capability):
    """HTTP(S) to these hosts only (exact, ``*.suffix`` or ``*``; ``:port`` narrows a pattern to
    that port)."""

    allowed_hosts: tuple[str, ...]


def network(allowed_hosts: Iterable[str]) -> NetworkCapability:
    """Declare HTTP(S) access to ``allowed_hosts``.

    Raises:
        ToolDefinitionError: a pattern is not a host, ``*.suffix`` or ``*`` (each maybe with
            ``:port``).
    """
    from toolwire.capabilities.kinds.network._ports import split_pattern

    hosts = non_empty_strings("network(allowed_hosts)", allowed_hosts)
    patterns = []
    for host in hosts:
        name, port = split_pattern(host)
        if not _HOST_PATTERN.match(name):
            raise ToolDefinitionError(
                f"network(allowed_hosts): {host!r} is not a host pattern; use 'api.example.com', "
                "'*.example.com' (subdomains only) or '*', each maybe with a port "
                "('127.0.0.1:8080', '*.example.com:8443')"
            )
        name = name.lower().rstrip(".")
        patterns.append(name if port is None else f"{name}:{port}")
    return NetworkCapability(allowed_hosts=tuple(patterns))


def _resolve(declared: NetworkCapability, call: Resolution) -> ScopedFetch | None:
    fetcher = call.backends.fetcher
    if fetcher is None:
        return None
    from toolwire.capabilities.kinds.network._policy import resolve_allowed_hosts
    from toolwire.capabilities.kinds.network._scoped import HostScopedFetch

    policy = call.scope.network_policy or call.backends.network_policy
    hosts = resolve_allowed_hosts(declared.allowed_hosts, policy)
    return HostScopedFetch(fetcher, hosts, policy)


NETWORK: CapabilityKind[NetworkCapability, ScopedFetch] = CapabilityKind(
    name="network",
    declaration=NetworkCapability,
    resolve=_resolve,
    context_field="scoped_fetch",
    backend=lambda backends: backends.fetcher,
    setup_hint="give CapabilityBackends a fetcher: SafeFetcher() (pip install 'toolwire[web]')",
)
"""``network(hosts)`` → ``ctx.scoped_fetch``; needs ``CapabilityBackends.fetcher``."""
