"""The seam of the ``network`` kind: `ScopedFetch`, its `FetchResponse`, and `NetworkPolicy`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["FetchResponse", "NetworkPolicy", "ScopedFetch"]


@dataclass(frozen=True, kw_only=True, slots=True)
class NetworkPolicy:
    """Per-personality network reach; ``deny`` is checked first.

    ``*.x.com`` matches subdomains of x.com, never x.com itself. An empty or absent ``allow``
    list means every public host is allowed.
    """

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    allow_private_urls: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class FetchResponse:
    """A completed, size-capped HTTP response."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str
    """The final URL after redirects."""
    hops: int = 0
    """How many redirects were followed."""
    truncated: bool = False
    """True when the body was cut at the response-size cap."""

    @property
    def text(self) -> str:
        """The body decoded as UTF-8, invalid bytes replaced."""
        return self.body.decode("utf-8", errors="replace")


@runtime_checkable
class ScopedFetch(Protocol):
    """HTTP limited to the tool's declared hosts and the network policy."""

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        body: bytes | str | None = None,
        timeout_s: float | None = None,
        max_bytes: int | None = None,
    ) -> FetchResponse:
        """Fetch ``url``; redirects are followed and re-validated.

        ``max_bytes`` caps the body read (below the backend's own cap): reading stops there,
        the rest is never downloaded, and ``truncated`` says so.

        Raises:
            HostNotAllowedError: the host or its address is refused.
        """
        ...
