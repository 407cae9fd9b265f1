"""IPv6 addresses that carry an IPv4 address, and where in them it sits.

A URL can name an IPv4 host through IPv6: ``[::ffff:127.0.0.1]`` reaches 127.0.0.1 on a
dual-stack socket, a NAT64 gateway turns ``[64:ff9b::a9fe:a9fe]`` into 169.254.169.254, and
so on. `embedded_ipv4` finds the form an address has and the IPv4 address(es) inside it, so
that `classify_address` can judge those too.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["IPV4_EMBEDDINGS", "Ipv4Embedding", "embedded_ipv4"]

_V4 = ipaddress.IPv4Address
_LOW_32 = 0xFFFFFFFF


def _last_32(value: int) -> tuple[ipaddress.IPv4Address, ...]:
    return (_V4(value & _LOW_32),)


def _six_to_four(value: int) -> tuple[ipaddress.IPv4Address, ...]:
    return (_V4((value >> 80) & _LOW_32),)


def _teredo(value: int) -> tuple[ipaddress.IPv4Address, ...]:
    # RFC 4380 section 4: server in bits 32-63, client (bits inverted) in bits 96-127.
    return (_V4((value >> 64) & _LOW_32), _V4(~value & _LOW_32))


def _rfc6052_any_length(value: int) -> tuple[ipaddress.IPv4Address, ...]:
    # RFC 6052 section 2.2: inside a /48 the IPv4 address may follow a /48, /56, /64 or /96
    # prefix, skipping bits 64-71 (the "u" octet); an operator's choice we cannot see.
    after_48 = ((value >> 64) & 0xFFFF) << 16 | (value >> 40) & 0xFFFF
    after_56 = ((value >> 64) & 0xFF) << 24 | (value >> 32) & 0xFFFFFF
    after_64 = (value >> 24) & _LOW_32
    return tuple(_V4(v) for v in (after_48, after_56, after_64, value & _LOW_32))


@dataclass(frozen=True, kw_only=True, slots=True)
class Ipv4Embedding:
    """One way IPv6 carries IPv4.

    Attributes:
        prefix: The IPv6 block of this form.
        name: What the form is called.
        rfc: Where it is defined.
        reaches_ipv4: True when a connection to the IPv6 address ends at the embedded IPv4
            host, so the IPv4 verdict is the verdict; False when the block has a verdict of
            its own (local-use NAT64 is never global) and the IPv4 can only make it worse.
        extract: The embedded IPv4 address(es), from the address as an integer.
    """

    prefix: ipaddress.IPv6Network
    name: str
    rfc: str
    reaches_ipv4: bool
    extract: Callable[[int], tuple[ipaddress.IPv4Address, ...]]


def _form(
    prefix: str,
    name: str,
    rfc: str,
    extract: Callable[[int], tuple[ipaddress.IPv4Address, ...]] = _last_32,
    *,
    reaches_ipv4: bool = True,
) -> Ipv4Embedding:
    return Ipv4Embedding(
        prefix=ipaddress.IPv6Network(prefix),
        name=name,
        rfc=rfc,
        reaches_ipv4=reaches_ipv4,
        extract=extract,
    )


IPV4_EMBEDDINGS: tuple[Ipv4Embedding, ...] = (
    _form("::ffff:0:0/96", "IPv4-mapped", "RFC 4291, Section 2.5.5.2"),
    _form("::ffff:0:0:0/96", "IPv4-translated", "RFC 2765, Section 2.1"),
    _form("::/96", "IPv4-compatible", "RFC 4291, Section 2.5.5.1"),
    _form("64:ff9b::/96", "NAT64 well-known prefix", "RFC 6052"),
    _form("64:ff9b:1::/48", "local-use NAT64", "RFC 8215", _rfc6052_any_length, reaches_ipv4=False),
    _form("2002::/16", "6to4", "RFC 3056", _six_to_four),
    _form("2001::/32", "Teredo", "RFC 4380", _teredo),
)
"""Every form we recognise; the prefixes do not overlap."""

_UNSPECIFIED_AND_LOOPBACK = ipaddress.IPv6Network("::/127")


def embedded_ipv4(
    address: ipaddress.IPv6Address,
) -> tuple[Ipv4Embedding, tuple[ipaddress.IPv4Address, ...]] | None:
    """The embedding form of ``address`` and the IPv4 address(es) it carries, if any.

    ``::`` and ``::1`` are the unspecified and loopback addresses, not IPv4-compatible ones.
    """
    if address in _UNSPECIFIED_AND_LOOPBACK:
        return None
    for form in IPV4_EMBEDDINGS:
        if address in form.prefix:
            return form, form.extract(int(address))
    return None
