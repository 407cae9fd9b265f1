"""Which IP addresses a fetch may reach, decided from the IANA special-purpose registries.

`classify_address` gives every address one of four verdicts:

- ``metadata``: a cloud instance-metadata endpoint (`METADATA_ADDRESSES`); always refused.
- ``unusable``: never a server's address (unspecified ``0.0.0.0`` and ``::``, the limited
  broadcast ``255.255.255.255``, multicast); always refused.
- ``private``: inside a block that is not globally reachable (`special_addresses`); refused
  unless the policy has ``allow_private_urls``.
- ``public``: everything else.

The strictest block decides: the registries mark a few blocks inside non-global ones as
globally reachable (``192.0.0.9``, PCP anycast, inside ``192.0.0.0/24``; ``2001:3::/32``
inside ``2001::/23``), and we refuse them with their parent: anycast reaches the nearest
server, which is often on the local network. An IPv6 address that carries an IPv4 address
(`embedded_ipv4`: mapped, translated, compatible, NAT64, 6to4, Teredo) gets the verdict of
the IPv4 address it reaches; local-use NAT64 stays private whatever it carries.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Literal, TypeAlias

from toolwire.capabilities.kinds.network._embedded_ipv4 import embedded_ipv4
from toolwire.capabilities.kinds.network.special_addresses import (
    IPV4_SPECIAL_PURPOSE,
    IPV6_SPECIAL_PURPOSE,
    NON_UNICAST_SPACE,
    SpecialPurposeBlock,
)

__all__ = [
    "METADATA_ADDRESSES",
    "AddressVerdict",
    "IpAddress",
    "classify_address",
    "parse_ip_literal",
]

IpAddress: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address
Kind: TypeAlias = Literal["public", "private", "unusable", "metadata"]

METADATA_ADDRESSES: frozenset[IpAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean, ... IMDS
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.170.23",  # AWS EKS pod identity agent
        "169.254.0.23",  # Tencent Cloud
        "100.100.100.200",  # Alibaba Cloud
        "168.63.129.16",  # Azure WireServer (a public address: only this list refuses it)
        "192.0.0.192",  # Oracle Cloud Classic
        "fd00:ec2::254",  # AWS IMDS over IPv6
        "fd00:ec2::23",  # AWS EKS pod identity agent over IPv6
    )
)
"""Cloud instance-metadata endpoints: refused always, even with ``allow_private_urls``."""

_NON_GLOBAL: tuple[SpecialPurposeBlock, ...] = tuple(
    block
    for block in (*IPV4_SPECIAL_PURPOSE, *IPV6_SPECIAL_PURPOSE, *NON_UNICAST_SPACE)
    if block.globally_reachable is not True
)
_NEVER_DESTINATIONS = frozenset(
    ipaddress.ip_network(n) for n in ("0.0.0.0/32", "::/128", "255.255.255.255/32")
) | frozenset(b.prefix for b in NON_UNICAST_SPACE if b.name == "Multicast")
_SEVERITY: dict[Kind, int] = {"public": 0, "private": 1, "unusable": 2, "metadata": 3}


@dataclass(frozen=True, kw_only=True, slots=True)
class AddressVerdict:
    """What `classify_address` decided about one address.

    Attributes:
        kind: ``public``, ``private`` (not globally reachable), ``unusable`` (never a
            server's address) or ``metadata``.
        reason: The block's registry name (``Loopback``, ``Shared Address Space``, ...), or
            how an embedded IPv4 was judged; empty when public.
    """

    kind: Kind
    reason: str = ""


_PUBLIC = AddressVerdict(kind="public")


def _registry_verdict(address: IpAddress) -> AddressVerdict:
    """The most specific non-global block holding ``address`` names the reason."""
    holding = [
        b for b in _NON_GLOBAL if b.prefix.version == address.version and address in b.prefix
    ]
    if not holding:
        return _PUBLIC
    block = max(holding, key=lambda b: b.prefix.prefixlen)
    unusable = any(b.prefix in _NEVER_DESTINATIONS for b in holding)
    return AddressVerdict(kind="unusable" if unusable else "private", reason=block.name)


def classify_address(address: IpAddress) -> AddressVerdict:
    """Whether ``address`` is public, private, never a destination, or a metadata endpoint.

    Args:
        address: An address as parsed by ``ipaddress`` (IPv6 scope ids are ignored).

    Returns:
        The verdict. An IPv6 address carrying an IPv4 one is judged by it (see the module).
    """
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
        address = ipaddress.IPv6Address(int(address))
    if address in METADATA_ADDRESSES:
        return AddressVerdict(kind="metadata", reason="cloud-metadata endpoint")
    embedding = embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else None
    if embedding is None:
        return _registry_verdict(address)
    form, carried = embedding
    verdict, v4 = max(
        ((classify_address(v4), v4) for v4 in carried), key=lambda pair: _SEVERITY[pair[0].kind]
    )
    if verdict.kind == "metadata" or (form.reaches_ipv4 and verdict.kind != "public"):
        return AddressVerdict(kind=verdict.kind, reason=f"{form.name} {v4}: {verdict.reason}")
    if not form.reaches_ipv4:  # which bits hold the IPv4 is the operator's choice, so only
        return _registry_verdict(address)  # a metadata address among the candidates counts
    return verdict


def parse_ip_literal(text: str) -> IpAddress | None:
    """An address from a resolver or a bracket-less IPv6 host; ``None`` when not an address."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
