"""Host patterns: one matching rule for policy lists and capability lists alike.

A pattern is an exact host, ``*.example.com`` (strict subdomains: ``api.example.com`` and
``a.b.example.com``, never ``example.com`` itself) or ``*`` (every host). Hosts and patterns
are read as a URL's host is (`canonical_host`): case, a trailing dot, IPv6 brackets,
percent-encoding, IDNA and IPv4 spellings make no difference (``[::FFFF:127.0.0.1]`` is
``::ffff:7f00:1``, ``0x7f.1`` is ``127.0.0.1``, ``Bücher.example`` is
``xn--bcher-kva.example``).
"""

from __future__ import annotations

from toolwire.capabilities.kinds.network._addresses import parse_ip_literal
from toolwire.capabilities.kinds.network._canonical_hosts import canonical_host, ipv6_text

__all__ = [
    "METADATA_HOSTNAMES",
    "host_matches",
    "is_localhost_name",
    "normalise_host",
    "pattern_covers",
]

METADATA_HOSTNAMES: frozenset[str] = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.com",
        "metadata.aws.amazon.com",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.tencentyun.com",
        "metadata.platformequinix.com",
    }
)
"""Cloud instance-metadata host names: refused always, even with ``allow_private_urls``."""


def normalise_host(host: str) -> str:
    """The canonical form of ``host``, as `canonical_host` reads it in a URL.

    A bare IPv6 literal (``::1``) is read as if bracketed. Text that is no valid host is only
    lower-cased and loses one trailing dot and its brackets: it matches itself, never a URL.
    """
    text = host.strip()
    address = parse_ip_literal(text)
    if address is not None and address.version == 6:
        return ipv6_text(address)
    try:
        return canonical_host(text)[0]
    except ValueError:
        text = text.lower()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        return text[:-1] if text.endswith(".") and text != "." else text


def host_matches(host: str, pattern: str) -> bool:
    """Whether ``host`` matches ``pattern`` (exact, ``*.suffix`` for strict subdomains, ``*``).

    Args:
        host: A host name or IP literal, in any case, with or without a trailing dot.
        pattern: An exact host, ``*.example.com`` or ``*``.

    Returns:
        True on a match. ``*.example.com`` never matches ``example.com`` itself: list both
        to allow both.
    """
    pattern = pattern.strip()
    if pattern == "*":
        return True
    host = normalise_host(host)
    if pattern.startswith("*."):
        suffix = normalise_host(pattern[2:])
        return bool(suffix) and host.endswith("." + suffix) and len(host) > len(suffix) + 1
    return host == normalise_host(pattern)


def pattern_covers(broad: str, narrow: str) -> bool:
    """Whether every host matched by ``narrow`` is also matched by ``broad``."""
    broad, narrow = broad.strip(), narrow.strip()
    if broad == "*":
        return True
    if narrow == "*":
        return False
    if narrow.startswith("*."):
        if not broad.startswith("*."):
            return False
        return normalise_host(broad[2:]) == normalise_host(narrow[2:]) or host_matches(
            narrow[2:], broad
        )
    return host_matches(narrow, broad)


def is_localhost_name(host: str) -> bool:
    """``localhost`` and its subdomains, which resolve to loopback by definition (RFC 6761)."""
    host = normalise_host(host)
    return host == "localhost" or host.endswith(".localhost")
