"""The IANA special-purpose address registries, as data.

`IPV4_SPECIAL_PURPOSE` and `IPV6_SPECIAL_PURPOSE` are the IANA IPv4 and IPv6 Special-Purpose
Address Registries (RFC 6890, updated by RFC 8190), every entry as published in 2025 with its
address block, name, RFC and "Globally Reachable" flag (``None`` where the registry says N/A
or, for a terminated entry, leaves it empty). `NON_UNICAST_SPACE` adds what those registries
leave to others: IPv4 multicast, and the IPv6 space outside global unicast ``2000::/3``
(multicast, the deprecated site-local block, and what the IPv6 Address Space registry keeps
"Reserved by IETF"). `classify_address` decides from these tables; nothing else lists ranges.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

__all__ = [
    "IPV4_SPECIAL_PURPOSE",
    "IPV6_SPECIAL_PURPOSE",
    "NON_UNICAST_SPACE",
    "SpecialPurposeBlock",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class SpecialPurposeBlock:
    """One registry entry.

    Attributes:
        prefix: The address block.
        name: The registry's name for it.
        rfc: The RFC(s) that assigned it.
        globally_reachable: The registry's "Globally Reachable" flag; ``None`` for N/A.
    """

    prefix: ipaddress.IPv4Network | ipaddress.IPv6Network
    name: str
    rfc: str
    globally_reachable: bool | None


def _blocks(*rows: tuple[str, str, str, bool | None]) -> tuple[SpecialPurposeBlock, ...]:
    return tuple(
        SpecialPurposeBlock(
            prefix=ipaddress.ip_network(prefix),
            name=name,
            rfc=rfc,
            globally_reachable=reachable,
        )
        for prefix, name, rfc, reachable in rows
    )


IPV4_SPECIAL_PURPOSE = _blocks(
    ("0.0.0.0/8", '"This network"', "RFC 791, Section 3.2", False),
    ("0.0.0.0/32", '"This host on this network"', "RFC 1122, Section 3.2.1.3", False),
    ("10.0.0.0/8", "Private-Use", "RFC 1918", False),
    ("100.64.0.0/10", "Shared Address Space", "RFC 6598", False),
    ("127.0.0.0/8", "Loopback", "RFC 1122, Section 3.2.1.3", False),
    ("169.254.0.0/16", "Link Local", "RFC 3927", False),
    ("172.16.0.0/12", "Private-Use", "RFC 1918", False),
    ("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890, Section 2.1", False),
    ("192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335", False),
    ("192.0.0.8/32", "IPv4 dummy address", "RFC 7600", False),
    ("192.0.0.9/32", "Port Control Protocol Anycast", "RFC 7723", True),
    ("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", "RFC 8155", True),
    # One registry entry with two blocks.
    ("192.0.0.170/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050 Section 2.2", False),
    ("192.0.0.171/32", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050 Section 2.2", False),
    ("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737", False),
    ("192.31.196.0/24", "AS112-v4", "RFC 7535", True),
    ("192.52.193.0/24", "AMT", "RFC 7450", True),
    ("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526", None),
    ("192.88.99.2/32", "6a44-relay anycast address", "RFC 6751", False),
    ("192.168.0.0/16", "Private-Use", "RFC 1918", False),
    ("192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534", True),
    ("198.18.0.0/15", "Benchmarking", "RFC 2544", False),
    ("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737", False),
    ("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737", False),
    ("240.0.0.0/4", "Reserved", "RFC 1112, Section 4", False),
    ("255.255.255.255/32", "Limited Broadcast", "RFC 8190, RFC 919 Section 7", False),
)
"""The IANA IPv4 Special-Purpose Address Registry."""

IPV6_SPECIAL_PURPOSE = _blocks(
    ("::1/128", "Loopback Address", "RFC 4291", False),
    ("::/128", "Unspecified Address", "RFC 4291", False),
    ("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291", False),
    ("64:ff9b::/96", "IPv4-IPv6 Translat.", "RFC 6052", True),
    ("64:ff9b:1::/48", "IPv4-IPv6 Translat.", "RFC 8215", False),
    ("100::/64", "Discard-Only Address Block", "RFC 6666", False),
    ("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780", False),
    ("2001::/23", "IETF Protocol Assignments", "RFC 2928", False),
    ("2001::/32", "TEREDO", "RFC 4380, RFC 8190", None),
    ("2001:1::1/128", "Port Control Protocol Anycast", "RFC 7723", True),
    ("2001:1::2/128", "Traversal Using Relays around NAT Anycast", "RFC 8155", True),
    ("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", "RFC 9665", True),
    ("2001:2::/48", "Benchmarking", "RFC 5180, RFC Errata 1752", False),
    ("2001:3::/32", "AMT", "RFC 7450", True),
    ("2001:4:112::/48", "AS112-v6", "RFC 7535", True),
    ("2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843", None),
    ("2001:20::/28", "ORCHIDv2", "RFC 7343", True),
    ("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374", True),
    ("2001:db8::/32", "Documentation", "RFC 3849", False),
    ("2002::/16", "6to4", "RFC 3056", None),
    ("2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534", True),
    ("3fff::/20", "Documentation", "RFC 9637", False),
    ("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602", False),
    ("fc00::/7", "Unique-Local", "RFC 4193, RFC 8190", False),
    ("fe80::/10", "Link-Local Unicast", "RFC 4291", False),
)
"""The IANA IPv6 Special-Purpose Address Registry."""

NON_UNICAST_SPACE = _blocks(
    ("224.0.0.0/4", "Multicast", "RFC 5771", False),
    ("ff00::/8", "Multicast", "RFC 4291", False),
    ("fec0::/10", "Site-Local (deprecated)", "RFC 3879", False),
    *(
        (block, "Reserved by IETF (not global unicast)", "RFC 4291, Section 2.4", False)
        for block in (
            "::/8",
            "100::/8",
            "200::/7",
            "400::/6",
            "800::/5",
            "1000::/4",
            "4000::/3",
            "6000::/3",
            "8000::/3",
            "a000::/3",
            "c000::/3",
            "e000::/4",
            "f000::/5",
            "f800::/6",
            "fe00::/9",
        )
    ),
)
"""Not unicast, or not global unicast, though absent from the special-purpose registries."""
