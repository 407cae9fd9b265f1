"""URL parsing by the WHATWG URL Standard, failing closed, with a canonical host.

`parse_url` reads a URL with ada (a conforming WHATWG parser, the one in Node.js), so a URL
means here what it means in a browser, and adds the refusals a fetch for an agent needs:
only ``http``/``https`` written with ``//``, no credentials, no whitespace or control
characters, no backslash inside the authority (where parsers disagree), a port from 1 to
65535, and a host that is a DNS name or an IP address (`canonical_host`). The host is read
a second time by our own parser, and a URL on which the two disagree is refused. The
request is rebuilt from the canonical URL, so what is sent is what was checked.

`resolve_location` resolves a redirect's ``Location`` against the current URL the same way
(``/\\evil.example/`` is the host ``evil.example``, as browsers take it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import ada_url

from toolwire.capabilities.kinds.network._addresses import IpAddress
from toolwire.capabilities.kinds.network._canonical_hosts import canonical_host
from toolwire.capabilities.kinds.network._refusals import PolicyRefusal, RefusalCode

__all__ = ["Destination", "ParsedUrl", "parse_authority", "parse_url", "resolve_location"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_C0_AND_SPACE = "".join(chr(c) for c in range(0x21))
_AUTHORITY_END = re.compile(r"[/?#]")
_AUTHORITY_FORM = re.compile(r"(\[[^\[\]]*\]|[^\[\]:]*):([^:]*)")
_AUTHORITY_CHARS = frozenset(map(chr, range(0x21, 0x7F))) - frozenset("/?#@\\")


@dataclass(frozen=True, kw_only=True, slots=True)
class Destination:
    """Where a connection goes: a canonical host and a port.

    Attributes:
        host: Lower-case ASCII name without trailing dot, or a canonical IP (no brackets).
        port: The port, 1 to 65535.
        address: The IP when the host is a literal (any spelling), else ``None``.
    """

    host: str
    port: int
    address: IpAddress | None


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedUrl:
    """A validated, canonical http(s) URL.

    Attributes:
        url: The canonical URL (host canonical, default port omitted, fragment dropped,
            path and query as the WHATWG standard serialises them).
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

    @property
    def destination(self) -> Destination:
        """The host and port this URL connects to."""
        return Destination(host=self.host, port=self.port, address=self.address)


def _refuse(reason: str, code: RefusalCode = "malformed-url") -> PolicyRefusal:
    return PolicyRefusal(reason, code)


def _whatwg(url: str, base: str | None = None) -> ada_url.URL | None:
    try:
        return ada_url.URL(url, base)
    except ValueError:  # also a str that does not encode as UTF-8
        return None


def _port(text: str, default: int) -> int:
    if not text:
        return default
    if not (text.isascii() and text.isdigit()):
        raise _refuse("malformed port in URL (not a number)")
    digits = text.lstrip("0") or "0"
    shown = digits if len(digits) <= 10 else f"of {len(digits)} digits"
    if len(digits) > 5 or not 0 < int(digits) < 65536:
        raise _refuse(f"port {shown} is out of range (1-65535)")
    return int(digits)


def _authority(text: str, scheme: str) -> tuple[str, str]:
    """``(host, port_text)`` of the authority after ``scheme://``, refusing what is unsafe."""
    rest = text[len(scheme) + 1 :]
    if not rest.startswith("//"):
        raise _refuse("malformed URL (no host: the scheme must be followed by '//')")
    authority = _AUTHORITY_END.split(rest[2:], maxsplit=1)[0]
    if "\\" in authority:  # browsers end the authority there, other parsers do not
        raise _refuse("malformed URL (backslash in host)")
    if "@" in authority:
        raise _refuse("URLs with embedded credentials are not allowed", "credentials-in-url")
    if authority.startswith("["):
        end = authority.find("]") + 1
        if end == 0 or (end < len(authority) and authority[end] != ":"):
            raise _refuse("malformed IPv6 host in URL")
        return authority[:end], authority[end + 1 :]
    host, _, port_text = authority.partition(":")
    return host, port_text


def parse_url(url: str) -> ParsedUrl:
    """Validate ``url`` and return its canonical form.

    Raises:
        HostNotAllowedError: the URL is malformed, not http(s), has no host, carries
            credentials (``user:pass@``), or its host or port is invalid. Messages start
            with ``HOST_NOT_ALLOWED:``, say what is wrong, and never echo the URL's path or
            query (they may hold secrets).
    """
    if not isinstance(url, str):
        raise _refuse(f"a URL must be a string, not {type(url).__name__}")
    text = url.strip(_C0_AND_SPACE)
    if any(ord(ch) <= 0x20 or ord(ch) == 0x7F for ch in text):
        raise _refuse("malformed URL (contains whitespace or control characters)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _refuse("malformed URL (not valid Unicode)") from exc
    match = _SCHEME.match(text)
    scheme = match.group()[:-1].lower() if match else ""
    if scheme not in _DEFAULT_PORTS:
        shown = scheme[:20] or "(none)"
        raise _refuse(
            f"scheme '{shown}' is not allowed (only http and https)", "scheme-not-allowed"
        )
    raw_host, port_text = _authority(text, scheme)
    default_port = _DEFAULT_PORTS[scheme]
    port = _port(port_text, default_port)
    try:
        host, address = canonical_host(raw_host)
    except ValueError as exc:
        raise _refuse(f"malformed host in URL: {exc}") from exc
    whatwg = _whatwg(text)
    if whatwg is None:
        raise _refuse("malformed URL (not valid by the WHATWG URL Standard)")
    their_host = whatwg.hostname.removeprefix("[").removesuffix("]").removesuffix(".")
    if their_host != host or int(whatwg.port or default_port) != port:
        raise _refuse(f"host '{host}' parses differently by the WHATWG URL Standard")
    if whatwg.username or whatwg.password:
        raise _refuse("URLs with embedded credentials are not allowed", "credentials-in-url")
    shown_host = f"[{host}]" if address is not None and address.version == 6 else host
    authority = shown_host if port == default_port else f"{shown_host}:{port}"
    head = f"{whatwg.protocol}//{whatwg.host}"
    if not whatwg.href.startswith(head):
        raise _refuse(f"host '{host}' parses differently by the WHATWG URL Standard")
    path_and_query = whatwg.href[len(head) :].partition("#")[0]
    return ParsedUrl(
        url=f"{scheme}://{authority}{path_and_query}",
        scheme="https" if scheme == "https" else "http",
        host=host,
        port=port,
        address=address,
    )


def resolve_location(base: str, location: str) -> str:
    """The absolute URL a redirect's ``Location`` names, resolved as browsers resolve it.

    Args:
        base: The URL that answered with the redirect.
        location: The ``Location`` header's value.

    Returns:
        The WHATWG serialisation of the target, still to be checked with `parse_url`.

    Raises:
        HostNotAllowedError: the location is not a URL, even relative to ``base``.
    """
    target = _whatwg(location, base)
    if target is None:
        raise _refuse("malformed redirect Location (not valid by the WHATWG URL Standard)")
    return target.href


def parse_authority(text: str) -> Destination:
    """Read ``host:port`` (a ``CONNECT`` target) with the same host rules as `parse_url`.

    The host is any host a URL may carry (IPv4 in every spelling, ``[IPv6]``, IDNA); the port
    is required. Nothing else may appear: no path, no ``user@``, no whitespace.

    Raises:
        PolicyRefusal: code ``malformed-url``; the message says what is wrong.
    """
    if not text or not set(text) <= _AUTHORITY_CHARS:
        raise _refuse("malformed authority (expected host:port, no path or credentials)")
    match = _AUTHORITY_FORM.fullmatch(text)
    if match is None:
        raise _refuse("malformed authority (expected host:port, or [IPv6]:port)")
    raw_host, port_text = match.groups()
    if not port_text:
        raise _refuse("malformed authority (the port is required)")
    port = _port(port_text, 0)
    try:
        host, address = canonical_host(raw_host)
    except ValueError as exc:
        raise _refuse(f"malformed host in authority: {exc}") from exc
    return Destination(host=host, port=port, address=address)
