"""Which URLs a page may be navigated to: the web (``http``, ``https``) and ``about:blank``.

``file:`` (the machine's files), ``chrome:`` and ``devtools:`` (the browser's own pages),
``data:``, ``blob:``, ``javascript:``, ``view-source:``, ``filesystem:`` and every other scheme
are refused. Whatever passes still goes through the egress proxy, which applies the network
policy to the host.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["ALLOWED_SCHEMES", "navigation_refusal"]

ALLOWED_SCHEMES = frozenset({"http", "https"})
"""Schemes a navigation may use (plus the exact URL ``about:blank``)."""


def navigation_refusal(url: str) -> str | None:
    """Why ``url`` may not be opened, or ``None`` when it may (``http(s)`` or ``about:blank``)."""
    text = url.strip()
    if text.lower() == "about:blank":
        return None
    if any(ord(c) < 0x20 or c in "\x7f\\" for c in text):
        return "the URL holds a control character or a backslash"
    try:
        scheme = urlsplit(text).scheme.lower()
    except ValueError:
        return "the URL cannot be parsed"
    if not scheme:
        return "the URL has no scheme; write it whole, e.g. https://example.com/"
    if scheme not in ALLOWED_SCHEMES:
        return f"the scheme {scheme!r} is not allowed (only http, https and about:blank)"
    if not text.lower().startswith(f"{scheme}://"):
        return "the URL must be written scheme://host/..."
    return None
