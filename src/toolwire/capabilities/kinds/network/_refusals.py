"""Why the network policy refused a destination, as a stable code beside the message.

Every refusal of the shared policy (`parse_url`, `parse_authority`, `check_destination`,
`check_url`) raises a `PolicyRefusal`: a `HostNotAllowedError` whose message starts with
``HOST_NOT_ALLOWED:`` like any other, plus a ``code`` a program can branch on. The egress
proxy sends the code in its ``X-Toolwire-Refusal`` header; `SafeFetcher` callers can read it
from the exception.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from toolwire.errors import HostNotAllowedError

__all__ = ["MALFORMED_CODES", "PolicyRefusal", "RefusalCode", "refusal_code"]

RefusalCode: TypeAlias = Literal[
    "malformed-url",
    "scheme-not-allowed",
    "credentials-in-url",
    "not-declared",
    "metadata",
    "private-address",
    "reserved-address",
    "deny-list",
    "not-on-allow-list",
    "port-not-allowed",
    "dns-failure",
    "too-many-redirects",
]
"""The stable refusal codes (documented in ``docs/network.md``)."""

MALFORMED_CODES: frozenset[RefusalCode] = frozenset({"malformed-url"})
"""Codes that mean the request was not a valid URL or authority, rather than a refused one."""


class PolicyRefusal(HostNotAllowedError):
    """A destination the network policy refuses, with the reason's stable code.

    Args:
        reason: What was refused and why (the host, never the URL's path or query).
        code: The stable code.
    """

    def __init__(self, reason: str, code: RefusalCode) -> None:
        text = reason if reason.startswith("HOST_NOT_ALLOWED:") else f"HOST_NOT_ALLOWED: {reason}"
        super().__init__(text)
        self.code: RefusalCode = code

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the code too (the default passes the message only)."""
        return type(self), (str(self), self.code)

    @property
    def reason(self) -> str:
        """The message without its ``HOST_NOT_ALLOWED:`` prefix."""
        return str(self).removeprefix("HOST_NOT_ALLOWED:").strip()


def refusal_code(exc: HostNotAllowedError) -> RefusalCode:
    """The code of a refusal; ``not-on-allow-list`` for a plain `HostNotAllowedError`."""
    return exc.code if isinstance(exc, PolicyRefusal) else "not-on-allow-list"
