"""Which headers cross the proxy: hop-by-hop ones stop at it (RFC 9110, section 7.6.1)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ambiguous_framing", "end_to_end", "has_body"]

_HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
_REQUEST_ONLY = frozenset({b"host", b"expect"})
"""Set again by the proxy: ``Host`` from the checked URL, ``Expect`` answered by the proxy."""


def _connection_tokens(headers: Iterable[tuple[bytes, bytes]]) -> frozenset[bytes]:
    return frozenset(
        token.strip().lower()
        for name, value in headers
        if name.lower() == b"connection"
        for token in value.split(b",")
        if token.strip()
    )


def end_to_end(
    headers: Iterable[tuple[bytes, bytes]], *, request: bool
) -> list[tuple[bytes, bytes]]:
    """The headers to pass on: hop-by-hop ones, and those ``Connection`` names, removed.

    A ``Content-Length`` beside a ``Transfer-Encoding`` is dropped too (RFC 9112, 6.3: the
    transfer coding wins; the body is framed again for the next hop).

    Args:
        headers: ``(name, value)`` pairs as received.
        request: Also drop ``Host`` and ``Expect`` (a request's).
    """
    pairs = list(headers)
    dropped = _HOP_BY_HOP | _connection_tokens(pairs) | (_REQUEST_ONLY if request else frozenset())
    if any(name.lower() == b"transfer-encoding" for name, _ in pairs):
        dropped |= {b"content-length"}  # the transfer coding framed it; h11 frames it anew
    return [(name, value) for name, value in pairs if name.lower() not in dropped]


def has_body(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether a request's framing announces a body (``Transfer-Encoding`` or a length > 0)."""
    for name, value in headers:
        lower = name.lower()
        if lower == b"transfer-encoding" or (lower == b"content-length" and value.strip() != b"0"):
            return True
    return False


def ambiguous_framing(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Both ``Content-Length`` and ``Transfer-Encoding``: two readers may disagree on the end
    of the body (request smuggling), so the proxy refuses the request (RFC 9112, 6.1)."""
    names = {name.lower() for name, _ in headers}
    return b"content-length" in names and b"transfer-encoding" in names
