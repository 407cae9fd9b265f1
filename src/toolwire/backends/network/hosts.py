"""Host patterns: one matching rule for policy lists and capability lists alike.

A pattern is an exact host, ``*.example.com`` (strict subdomains: ``api.example.com`` and
``a.b.example.com``, never ``example.com`` itself) or ``*`` (every host). Matching ignores case,
a trailing dot and IPv6 brackets, and compares IP literals by value (``[::FFFF:7f00:1]`` is
``::ffff:127.0.0.1``).
"""

from __future__ import annotations

from collections.abc import Iterable

from toolwire.backends.network.addresses import parse_ip_literal

__all__ = [
    "METADATA_HOSTNAMES",
    "host_matches",
    "is_localhost_name",
    "normalise_host",
    "pattern_covers",
    "patterns_intersection",
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
    """Lower-case ``host``, drop one trailing dot and IPv6 brackets, canonicalise IP literals."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host.endswith(".") and host != ".":
        host = host[:-1]
    address = parse_ip_literal(host)
    return str(address) if address is not None else host


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


def patterns_intersection(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    """The patterns matching exactly the hosts matched by both lists, without duplicates.

    For each pair, the narrower pattern survives when one covers the other; two unrelated
    patterns (``a.com`` and ``b.com``) share no host and contribute nothing.
    """
    second = tuple(second)
    out: dict[str, None] = {}
    for a in first:
        for b in second:
            if pattern_covers(a, b):
                out[b] = None
            elif pattern_covers(b, a):
                out[a] = None
    return tuple(out)


def is_localhost_name(host: str) -> bool:
    """``localhost`` and its subdomains, which resolve to loopback by definition (RFC 6761)."""
    host = normalise_host(host)
    return host == "localhost" or host.endswith(".localhost")
