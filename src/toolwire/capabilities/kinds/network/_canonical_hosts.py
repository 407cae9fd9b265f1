"""The host of a URL, read as the WHATWG URL Standard (every browser) reads it.

`canonical_host` is the WHATWG host parser for ``http``/``https`` plus two rules of ours: a
name must be a DNS name (letters, digits, ``-`` and ``_``; labels of 1 to 63 characters, 253
in all), where browsers also allow ``$``, ``!``, empty labels and more; and the trailing dot
is dropped. Apart from those refusals it gives exactly the host the standard gives, which
`tests/backends/network/test_network_whatwg.py` checks against ada, a conforming parser:

- percent-decoding, then IDNA (UTS 46, non-transitional, as the standard asks);
- IPv4 numbers in every spelling (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``)
  are dotted quads, and a host that ends in a number but is not a valid IPv4 address
  (``1.2.3.256``, ``example.1``) is refused;
- IPv6 literals in brackets, serialised the standard's way (``[::ffff:7f00:1]``).
"""

from __future__ import annotations

import ipaddress
import urllib.parse

import ada_url

from toolwire.capabilities.kinds.network._addresses import IpAddress

__all__ = ["canonical_host", "ipv6_text", "parse_ipv4_host"]

_FORBIDDEN_IN_DOMAIN = frozenset([*map(chr, range(0x21)), "\x7f", *"#%/:<>?@[\\]^|"])
"""The standard's forbidden domain code points: C0 controls, space, DEL, ``#%/:<>?@[\\]^|``."""
_DNS_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF:.")


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
        raise ValueError(f"{host[:80]!r} ends in a number but has more than four parts")
    numbers: list[int] = []
    for part in parts:
        number = _parse_ipv4_number(part)
        if number is None:
            raise ValueError(
                f"{host[:80]!r} ends in a number but {part[:20]!r} is not an IPv4 number"
            )
        numbers.append(number)
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise ValueError(f"{host[:80]!r} is out of range for an IPv4 address")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number * 256 ** (3 - index)
    return ipaddress.IPv4Address(value)


def ipv6_text(address: ipaddress.IPv6Address) -> str:
    """The WHATWG serialisation: lower-case hex, the first longest run of 2+ zeros as ``::``.

    Unlike ``str()`` on some Python versions, never writes a dotted IPv4 tail.
    """
    pieces = [(int(address) >> (112 - 16 * i)) & 0xFFFF for i in range(8)]
    best_start, best_length, index = -1, 1, 0
    while index < 8:
        end = index
        while end < 8 and pieces[end] == 0:
            end += 1
        if end - index > best_length:
            best_start, best_length = index, end - index
        index = max(end, index + 1)
    hexes = [f"{piece:x}" for piece in pieces]
    if best_start < 0:
        return ":".join(hexes)
    head, tail = hexes[:best_start], hexes[best_start + best_length :]
    return ":".join(head) + "::" + ":".join(tail)


def _ipv6_host(inside: str) -> tuple[str, IpAddress]:
    if not inside or not set(inside) <= _HEX_DIGITS:  # no scope id (%), nothing non-ASCII
        raise ValueError("malformed IPv6 address")
    try:
        address = ipaddress.IPv6Address(inside)
    except ValueError as exc:
        raise ValueError("malformed IPv6 address") from exc
    return ipv6_text(address), address


def _domain_to_ascii(text: str) -> str:
    try:
        domain = urllib.parse.unquote_to_bytes(text).decode("utf-8")
    except UnicodeError as exc:
        raise ValueError("host is not valid UTF-8 once percent-decoded") from exc
    if not set(domain).isdisjoint(_FORBIDDEN_IN_DOMAIN):
        raise ValueError("host contains a character no host may contain")
    ascii_domain = ada_url.idna_to_ascii(domain).decode("ascii") if domain else ""
    if not ascii_domain:
        raise ValueError("host is not a valid internationalised domain name")
    if not set(ascii_domain).isdisjoint(_FORBIDDEN_IN_DOMAIN):
        raise ValueError("host contains a character no host may contain")
    return ascii_domain


def canonical_host(text: str) -> tuple[str, IpAddress | None]:
    """The canonical host, and its address when it is an IP literal.

    Args:
        text: The host as written in a URL's authority: maybe percent-encoded, non-ASCII,
            an IPv4 number in any spelling, or an IPv6 literal in brackets.

    Returns:
        ``(host, address)``: a lower-case ASCII DNS name without trailing dot and ``None``,
        or the IP in its canonical text (IPv6 without brackets) and the address.

    Raises:
        ValueError: not a valid host, or a name that is not a DNS name (the message says
            why, without repeating the host).
    """
    if text.startswith("["):
        if not text.endswith("]"):
            raise ValueError("unclosed bracket in IPv6 host")
        return _ipv6_host(text[1:-1])
    host = _domain_to_ascii(text)
    ipv4 = parse_ipv4_host(host)
    if ipv4 is not None:
        return str(ipv4), ipv4
    host = host.removesuffix(".")
    labels = host.split(".")
    if not host or len(host) > 253 or not set(host) <= _DNS_CHARS:
        raise ValueError("host is not a DNS name")
    if any(not label or len(label) > 63 for label in labels):
        raise ValueError("host has an empty label or one longer than 63 characters")
    return host, None
