"""Safe HTTP: the network backend behind the `ScopedFetch` seam.

```python
from toolwire.backends.network import HostScopedFetch, SafeFetcher, resolve_allowed_hosts

fetcher = SafeFetcher()
seam = HostScopedFetch(fetcher, resolve_allowed_hosts(("api.github.com",), policy), policy)
```

`SafeFetcher` needs httpx (``pip install 'toolwire[web]'``); it is imported on first use, so
the pure parts (`host_matches`, `check_url`, `check_destination`, `resolve_allowed_hosts`, ...)
work without it. The egress proxy (`toolwire.sandbox.egress`) applies the same policy through
`check_destination`.
See ``docs/network.md`` for every rule and the reasons behind them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire.backends.network.addresses import (
    METADATA_ADDRESSES,
    AddressVerdict,
    classify_address,
)
from toolwire.backends.network.canonical_hosts import parse_ipv4_host
from toolwire.backends.network.hosts import METADATA_HOSTNAMES, host_matches, pattern_covers
from toolwire.backends.network.policy import (
    CheckedDestination,
    CheckedUrl,
    check_destination,
    check_policy,
    check_url,
    resolve_allowed_hosts,
)
from toolwire.backends.network.ports import DEFAULT_PORTS, pattern_matches, split_pattern
from toolwire.backends.network.refusals import PolicyRefusal, RefusalCode
from toolwire.backends.network.resolvers import Resolver, StaticResolver, SystemResolver
from toolwire.backends.network.scoped import HostScopedFetch
from toolwire.backends.network.urls import Destination, ParsedUrl, parse_authority, parse_url

if TYPE_CHECKING:
    from toolwire.backends.network.fetcher import SafeFetcher

__all__ = [
    "DEFAULT_PORTS",
    "METADATA_ADDRESSES",
    "METADATA_HOSTNAMES",
    "AddressVerdict",
    "CheckedDestination",
    "CheckedUrl",
    "Destination",
    "HostScopedFetch",
    "ParsedUrl",
    "PolicyRefusal",
    "RefusalCode",
    "Resolver",
    "SafeFetcher",
    "StaticResolver",
    "SystemResolver",
    "check_destination",
    "check_policy",
    "check_url",
    "classify_address",
    "host_matches",
    "parse_authority",
    "parse_ipv4_host",
    "parse_url",
    "pattern_covers",
    "pattern_matches",
    "resolve_allowed_hosts",
    "split_pattern",
]


def __getattr__(name: str) -> Any:
    if name == "SafeFetcher":  # httpx loads on its first fetch (a missing one: at creation)
        from toolwire.backends.network.fetcher import SafeFetcher

        return SafeFetcher
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
