"""Ports in host patterns, and which ports a raw connection may reach.

A pattern may name a port: ``api.example.com:8443``, ``*.example.com:8080``, ``[::1]:8000``,
``*:8080``. Such a pattern matches the host only on that port; a pattern without a port
matches the host on any port (a bare IPv6 pattern such as ``::1`` has no port).

The egress proxy also restricts ports: a tunnel is a raw byte stream, so the port decides the
protocol spoken (SMTP on 25, SSH on 22). It allows `DEFAULT_PORTS` (80 and 443) and any port an
allow pattern matching the host names. `SafeFetcher` speaks only HTTP itself and passes no port
rule: a URL may carry any port its patterns allow.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from toolwire.capabilities.kinds.network._hosts import host_matches, pattern_covers

__all__ = [
    "DEFAULT_PORTS",
    "pattern_matches",
    "patterns_intersection",
    "port_allowed",
    "split_pattern",
]

DEFAULT_PORTS: frozenset[int] = frozenset({80, 443})
"""The ports the egress proxy reaches on an allowed host without a pattern naming the port."""


def _port_number(text: str) -> int | None:
    if not (text.isascii() and text.isdigit()) or len(text) > 5:
        return None
    number = int(text)
    return number if 0 < number < 65536 else None


def split_pattern(pattern: str) -> tuple[str, int | None]:
    """``(host_pattern, port)``: the port is ``None`` when the pattern names none.

    ``[v6]:port`` and ``name:port`` carry a port; ``::1`` and ``[::1]`` do not. A text after
    the last colon that is not a port from 1 to 65535 leaves the pattern as is (it then
    matches no valid host).
    """
    text = pattern.strip()
    if text.startswith("["):
        inside, bracket, rest = text.partition("]")
        port = _port_number(rest[1:]) if bracket and rest.startswith(":") else None
        return (inside + bracket, port) if port is not None else (text, None)
    head, colon, tail = text.rpartition(":")
    if not colon or ":" in head:
        return text, None
    port = _port_number(tail)
    return (head, port) if port is not None else (text, None)


def pattern_matches(host: str, pattern: str, port: int | None = None) -> bool:
    """Whether ``host`` (on ``port``) matches ``pattern``.

    Args:
        host: A canonical host.
        pattern: A host pattern (`host_matches`), maybe with a port.
        port: The destination's port; ``None`` compares hosts only.
    """
    host_pattern, pattern_port = split_pattern(pattern)
    if port is not None and pattern_port is not None and pattern_port != port:
        return False
    return host_matches(host, host_pattern)


def port_allowed(
    host: str, port: int, patterns: Iterable[str], default_ports: Collection[int]
) -> bool:
    """Whether ``port`` is in ``default_ports`` or named by a pattern that matches ``host``."""
    if port in default_ports:
        return True
    for pattern in patterns:
        host_pattern, pattern_port = split_pattern(pattern)
        if pattern_port == port and host_matches(host, host_pattern):
            return True
    return False


def patterns_intersection(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    """The patterns matching exactly the hosts (and ports) matched by both lists, without
    duplicates.

    For each pair, the narrower host pattern survives when one covers the other, with the port
    either names (``127.0.0.1`` and ``127.0.0.1:8080`` give ``127.0.0.1:8080``; ``*.x.com:8080``
    and ``api.x.com`` give ``api.x.com:8080``); unrelated hosts (``a.com`` and ``b.com``) or two
    ports share nothing and contribute nothing.
    """
    second = tuple(second)
    out: dict[str, None] = {}
    for a in first:
        for b in second:
            both = _pattern_intersection(a, b)
            if both is not None:
                out[both] = None
    return tuple(out)


def _pattern_intersection(a: str, b: str) -> str | None:
    a_host, a_port = split_pattern(a)
    b_host, b_port = split_pattern(b)
    if a_port is not None and b_port is not None and a_port != b_port:
        return None
    if pattern_covers(a_host, b_host):
        host = b_host
    elif pattern_covers(b_host, a_host):
        host = a_host
    else:
        return None
    port = a_port if a_port is not None else b_port
    if port is None:
        return host
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # a bare IPv6 pattern takes brackets before a port
    return f"{host}:{port}"
