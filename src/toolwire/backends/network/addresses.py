"""IP addresses: the browsers' IPv4 number forms, and which addresses a fetch may reach.

Two jobs, both pure:

- `parse_ipv4_host` reads a host the way the WHATWG URL standard (every browser) does, so
  ``2130706433``, ``0x7f.1``, ``0177.0.0.1`` and ``127.1`` are all ``127.0.0.1``. Python's
  ``ipaddress`` accepts only the dotted-decimal form, and an unrecognised spelling would
  otherwise reach the resolver and the C library's ``inet_aton``, which does accept them.
- `classify_address` says whether an address is public, private/reserved, or a cloud-metadata
  endpoint. Addresses embedded in IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) are
  judged by the IPv4 address they carry.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = [
    "METADATA_ADDRESSES",
    "AddressVerdict",
    "IpAddress",
    "classify_address",
    "parse_ip_literal",
    "parse_ipv4_host",
]

IpAddress: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address

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

_V4_BLOCKED: tuple[tuple[ipaddress.IPv4Network, str], ...] = tuple(
    (ipaddress.IPv4Network(net), name)
    for net, name in (
        ("0.0.0.0/8", "'this network'"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "carrier-grade NAT"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "6to4 relay anycast"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
    )
)

_V6_BLOCKED: tuple[tuple[ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.IPv6Network(net), name)
    for net, name in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("100::/64", "discard-only"),
        ("2001:2::/48", "benchmarking"),
        ("2001:db8::/32", "documentation"),
        ("2001:10::/28", "ORCHID"),
        ("2001:20::/28", "ORCHIDv2"),
        ("3fff::/20", "documentation"),
        ("fc00::/7", "unique-local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    )
)

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


@dataclass(frozen=True, kw_only=True, slots=True)
class AddressVerdict:
    """What `classify_address` decided about one address.

    Attributes:
        kind: ``public``, ``private`` (any non-global range) or ``metadata``.
        reason: The range's name (``loopback``, ``carrier-grade NAT``, ...); empty when public.
    """

    kind: Literal["public", "private", "metadata"]
    reason: str = ""


_PUBLIC = AddressVerdict(kind="public")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, by the transition scheme it belongs to."""
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if int(address) >> 32 == 0:  # IPv4-compatible ::a.b.c.d (deprecated, still routable)
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    if address in _NAT64:
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    if address.sixtofour is not None:
        return [address.sixtofour]
    if address.teredo is not None:
        return list(address.teredo)
    return []


def classify_address(address: IpAddress) -> AddressVerdict:
    """Whether ``address`` is public, in a private or reserved range, or a metadata endpoint.

    Args:
        address: An address as parsed by ``ipaddress`` (IPv6 scope ids are ignored).

    Returns:
        The verdict; an IPv6 address embedding an IPv4 one gets the worse of the two verdicts.
    """
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
        address = ipaddress.IPv6Address(int(address))
    if address in METADATA_ADDRESSES:
        return AddressVerdict(kind="metadata", reason="cloud-metadata endpoint")
    if isinstance(address, ipaddress.IPv4Address):
        for v4_net, name in _V4_BLOCKED:
            if address in v4_net:
                return AddressVerdict(kind="private", reason=name)
        return _PUBLIC
    embedded = [classify_address(v4) for v4 in _embedded_ipv4(address)]
    for verdict in embedded:
        if verdict.kind == "metadata":
            return verdict
    for net, name in _V6_BLOCKED:
        if address in net:
            return AddressVerdict(kind="private", reason=name)
    for verdict in embedded:
        if verdict.kind == "private":
            return AddressVerdict(kind="private", reason=f"embedded IPv4 {verdict.reason}")
    return _PUBLIC


def _parse_ipv4_number(part: str) -> int | None:
    """One dot-separated part: decimal, ``0x`` hex or leading-zero octal; None when invalid."""
    if not part:
        return None
    radix = 10
    if part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        part, radix = part[1:], 8
    if not part:
        return 0
    digits = "0123456789abcdef"[:radix]
    if any(ch not in digits for ch in part.lower()):
        return None
    return int(part, radix)


def _ends_in_number(parts: list[str]) -> bool:
    last = parts[-1]
    return (last.isascii() and last.isdigit()) or _parse_ipv4_number(last) is not None


def parse_ipv4_host(host: str) -> ipaddress.IPv4Address | None:
    """Read an ASCII, lower-cased host as the WHATWG URL host parser reads IPv4 numbers.

    Args:
        host: The host after percent-decoding and IDNA (no brackets).

    Returns:
        The address when the host is an IPv4 number in any browser-accepted spelling
        (``2130706433``, ``0x7f000001``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``, a trailing
        dot), or ``None`` when it is a domain name.

    Raises:
        ValueError: the host ends in a number but is not a valid IPv4 address
            (``1.2.3.256``, ``example.1``, ``1.2.3.4.5``); browsers refuse such URLs.
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if not _ends_in_number(parts):
        return None
    if len(parts) > 4:
        raise ValueError(f"{host!r} ends in a number but has more than four parts")
    numbers: list[int] = []
    for part in parts:
        number = _parse_ipv4_number(part)
        if number is None:
            raise ValueError(f"{host!r} ends in a number but {part!r} is not an IPv4 number")
        numbers.append(number)
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise ValueError(f"{host!r} is out of range for an IPv4 address")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number * 256 ** (3 - index)
    return ipaddress.IPv4Address(value)


def parse_ip_literal(text: str) -> IpAddress | None:
    """An address from a resolver or a bracket-less IPv6 host; ``None`` when not an address."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
