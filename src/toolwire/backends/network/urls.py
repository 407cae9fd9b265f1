"""URL parsing that fails closed and canonicalises the host the way browsers do.

`parse_url` accepts only ``http``/``https`` URLs with an authority, refuses embedded
credentials, and rebuilds the URL from what it validated, so the request that is sent is the
URL that was checked (no parser differential between the check and the HTTP client).
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Literal

from toolwire.backends.network.addresses import IpAddress, parse_ip_literal, parse_ipv4_host
from toolwire.errors import HostNotAllowedError

__all__ = ["ParsedUrl", "parse_url"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedUrl:
    """A validated, canonical http(s) URL.

    Attributes:
        url: The canonical URL (host canonical, default port omitted, fragment dropped).
        scheme: ``http`` or ``https``.
        host: Lower-case ASCII name without trailing dot, or a canonical IP (no brackets).
        port: The effective port.
        address: The IP when the host is a literal (any spelling), else ``None``.
    """

    url: str
    scheme: Literal["http", "https"]
    host: str
    port: int
    address: IpAddress | None

    @property
    def origin(self) -> tuple[str, str, int]:
        """``(scheme, host, port)``: what "same origin" compares."""
        return (self.scheme, self.host, self.port)


def _refuse(reason: str) -> HostNotAllowedError:
    return HostNotAllowedError(f"HOST_NOT_ALLOWED: {reason}")


def _canonical_host(raw: str) -> tuple[str, IpAddress | None]:
    """Percent-decode, IDNA-encode, lower-case and classify a host (never bracketed)."""
    try:
        host = urllib.parse.unquote_to_bytes(raw).decode("utf-8")
        if not host.isascii():
            host = host.encode("idna").decode("ascii")
    except (UnicodeError, ValueError) as exc:
        raise _refuse("malformed host in URL") from exc
    host = host.lower()
    try:
        ipv4 = parse_ipv4_host(host)
    except ValueError as exc:
        raise _refuse(f"malformed host in URL: {exc}") from exc
    if ipv4 is not None:
        return str(ipv4), ipv4
    if host.endswith("."):
        host = host[:-1]
    labels = host.split(".")
    if (
        not host
        or len(host) > 253
        or not set(host) <= _HOST_CHARS
        or any(not label or len(label) > 63 for label in labels)
    ):
        raise _refuse("malformed host in URL")
    return host, None


def _split_authority(netloc: str) -> tuple[str, IpAddress | None, str]:
    """``(host, address, port_text)`` from an authority without userinfo."""
    if netloc.startswith("["):
        end = netloc.find("]")
        inside = netloc[1:end] if end > 0 else ""
        address = parse_ip_literal(inside) if "%" not in inside else None
        rest = netloc[end + 1 :]
        if address is None or address.version != 6 or (rest and not rest.startswith(":")):
            raise _refuse("malformed IPv6 host in URL")
        return str(address), address, rest[1:]
    raw_host, _, port_text = netloc.partition(":")
    host, address = _canonical_host(raw_host)
    return host, address, port_text


def parse_url(url: str) -> ParsedUrl:
    """Validate ``url`` and return its canonical form.

    Raises:
        HostNotAllowedError: the URL is malformed, not http(s), has no host, carries
            credentials (``user:pass@``), or its host or port is invalid. Messages start
            with ``HOST_NOT_ALLOWED:`` and never echo the URL (it may hold secrets).
    """
    text = url.strip(" \t\n\r\f\v\x00")
    if any(ord(ch) <= 0x20 or ord(ch) == 0x7F for ch in text):
        raise _refuse("malformed URL (contains whitespace or control characters)")
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError as exc:
        raise _refuse("malformed URL") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        shown = scheme[:20] or "(none)"
        raise _refuse(f"scheme '{shown}' is not allowed (only http and https)")
    if not text[len(scheme) + 1 :].startswith("//") or not parts.netloc:
        raise _refuse("malformed URL (no host)")
    if "@" in parts.netloc:
        raise _refuse("URLs with embedded credentials are not allowed")
    if "\\" in parts.netloc:
        raise _refuse("malformed URL (backslash in host)")
    host, address, port_text = _split_authority(parts.netloc)
    default_port = _DEFAULT_PORTS[scheme]
    if port_text and (not port_text.isascii() or not port_text.isdigit()):
        raise _refuse("malformed port in URL")
    port = int(port_text) if port_text else default_port
    if not 0 < port < 65536:
        raise _refuse(f"port {port} is out of range")
    shown_host = f"[{host}]" if address is not None and address.version == 6 else host
    authority = shown_host if port == default_port else f"{shown_host}:{port}"
    query = f"?{parts.query}" if parts.query or text.split("#", 1)[0].endswith("?") else ""
    canonical = f"{scheme}://{authority}{parts.path or '/'}{query}"
    return ParsedUrl(
        url=canonical,
        scheme="https" if scheme == "https" else "http",
        host=host,
        port=port,
        address=address,
    )
