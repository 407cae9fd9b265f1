"""Safe HTTP: the network backend behind the `ScopedFetch` seam.

```python
from toolwire.capabilities.kinds.network import HostScopedFetch, SafeFetcher, resolve_allowed_hosts

fetcher = SafeFetcher()
seam = HostScopedFetch(fetcher, resolve_allowed_hosts(("api.github.com",), policy), policy)
```

`SafeFetcher` needs httpx (``pip install 'toolwire[web]'``); it is imported on first use, so the
pure parts (`host_matches`, `check_url`, `check_destination`, `resolve_allowed_hosts`, ...) work
without it. The egress proxy (`toolwire.capabilities.kinds.process.sandbox.egress`) applies the same
policy through `check_destination`. See ``docs/network.md`` for every rule and the reasons behind
them.

Rooms:

- ``kind.py`` (declaration and row), ``seam.py`` (`ScopedFetch`, `FetchResponse`, `NetworkPolicy`),
  ``_scoped.py`` (`HostScopedFetch`: limited to the declared hosts);
- ``_fetcher.py`` (`SafeFetcher`), ``_exchange.py`` (its httpx half), ``_transport.py`` (connects
  only to validated addresses: DNS pinning), ``_resolvers.py`` (name resolution behind `check_url`);
- ``_policy.py`` (whether a destination may be reached), ``_refusals.py`` (why not, as a code),
  ``_hosts.py`` (host patterns), ``_ports.py`` (ports in patterns and for raw connections);
- ``_urls.py`` (WHATWG URL parsing), ``_canonical_hosts.py`` (a URL's host as browsers read it);
- ``_addresses.py`` (which IP addresses may be reached), ``special_addresses.py`` (the IANA
  special-purpose registries, as data), ``_embedded_ipv4.py`` (IPv4 inside IPv6 addresses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.network._addresses import (
        METADATA_ADDRESSES,
        AddressVerdict,
        classify_address,
    )
    from toolwire.capabilities.kinds.network._canonical_hosts import parse_ipv4_host
    from toolwire.capabilities.kinds.network._fetcher import SafeFetcher
    from toolwire.capabilities.kinds.network._hosts import (
        METADATA_HOSTNAMES,
        host_matches,
        pattern_covers,
    )
    from toolwire.capabilities.kinds.network._policy import (
        CheckedDestination,
        CheckedUrl,
        check_destination,
        check_policy,
        check_url,
        resolve_allowed_hosts,
    )
    from toolwire.capabilities.kinds.network._ports import (
        DEFAULT_PORTS,
        pattern_matches,
        split_pattern,
    )
    from toolwire.capabilities.kinds.network._refusals import PolicyRefusal, RefusalCode
    from toolwire.capabilities.kinds.network._resolvers import (
        Resolver,
        StaticResolver,
        SystemResolver,
    )
    from toolwire.capabilities.kinds.network._scoped import HostScopedFetch
    from toolwire.capabilities.kinds.network._urls import (
        Destination,
        ParsedUrl,
        parse_authority,
        parse_url,
    )
    from toolwire.capabilities.kinds.network.kind import (
        NETWORK,
        FetchResponse,
        NetworkCapability,
        NetworkPolicy,
        ScopedFetch,
        network,
    )

_LAZY = {
    "NETWORK": "toolwire.capabilities.kinds.network.kind",
    "FetchResponse": "toolwire.capabilities.kinds.network.kind",
    "NetworkCapability": "toolwire.capabilities.kinds.network.kind",
    "NetworkPolicy": "toolwire.capabilities.kinds.network.kind",
    "ScopedFetch": "toolwire.capabilities.kinds.network.kind",
    "network": "toolwire.capabilities.kinds.network.kind",
    "AddressVerdict": "toolwire.capabilities.kinds.network._addresses",
    "CheckedDestination": "toolwire.capabilities.kinds.network._policy",
    "CheckedUrl": "toolwire.capabilities.kinds.network._policy",
    "DEFAULT_PORTS": "toolwire.capabilities.kinds.network._ports",
    "Destination": "toolwire.capabilities.kinds.network._urls",
    "HostScopedFetch": "toolwire.capabilities.kinds.network._scoped",
    "METADATA_ADDRESSES": "toolwire.capabilities.kinds.network._addresses",
    "METADATA_HOSTNAMES": "toolwire.capabilities.kinds.network._hosts",
    "ParsedUrl": "toolwire.capabilities.kinds.network._urls",
    "PolicyRefusal": "toolwire.capabilities.kinds.network._refusals",
    "RefusalCode": "toolwire.capabilities.kinds.network._refusals",
    "Resolver": "toolwire.capabilities.kinds.network._resolvers",
    "SafeFetcher": "toolwire.capabilities.kinds.network._fetcher",
    "StaticResolver": "toolwire.capabilities.kinds.network._resolvers",
    "SystemResolver": "toolwire.capabilities.kinds.network._resolvers",
    "check_destination": "toolwire.capabilities.kinds.network._policy",
    "check_policy": "toolwire.capabilities.kinds.network._policy",
    "check_url": "toolwire.capabilities.kinds.network._policy",
    "classify_address": "toolwire.capabilities.kinds.network._addresses",
    "host_matches": "toolwire.capabilities.kinds.network._hosts",
    "parse_authority": "toolwire.capabilities.kinds.network._urls",
    "parse_ipv4_host": "toolwire.capabilities.kinds.network._canonical_hosts",
    "parse_url": "toolwire.capabilities.kinds.network._urls",
    "pattern_covers": "toolwire.capabilities.kinds.network._hosts",
    "pattern_matches": "toolwire.capabilities.kinds.network._ports",
    "resolve_allowed_hosts": "toolwire.capabilities.kinds.network._policy",
    "split_pattern": "toolwire.capabilities.kinds.network._ports",
}


__all__ = [
    "DEFAULT_PORTS",
    "METADATA_ADDRESSES",
    "METADATA_HOSTNAMES",
    "NETWORK",
    "AddressVerdict",
    "CheckedDestination",
    "CheckedUrl",
    "Destination",
    "FetchResponse",
    "HostScopedFetch",
    "NetworkCapability",
    "NetworkPolicy",
    "ParsedUrl",
    "PolicyRefusal",
    "RefusalCode",
    "Resolver",
    "SafeFetcher",
    "ScopedFetch",
    "StaticResolver",
    "SystemResolver",
    "check_destination",
    "check_policy",
    "check_url",
    "classify_address",
    "host_matches",
    "network",
    "parse_authority",
    "parse_ipv4_host",
    "parse_url",
    "pattern_covers",
    "pattern_matches",
    "resolve_allowed_hosts",
    "split_pattern",
]


# httpx loads on the first fetch (a missing one: at creation), not with the package.
__getattr__, __dir__ = lazy_exports(
    __name__, {"SafeFetcher": "toolwire.capabilities.kinds.network._fetcher"}, globals()
)

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
