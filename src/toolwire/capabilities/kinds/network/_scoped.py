"""HostScopedFetch: the `ScopedFetch` seam a tool gets, limited to the hosts it declared."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from toolwire.capabilities.seams import FetchResponse, NetworkPolicy

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.network._fetcher import SafeFetcher

__all__ = ["HostScopedFetch"]


class HostScopedFetch:
    """HTTP for one tool: its declared hosts first, then the personality's policy.

    Every hop, redirects included, must match ``allowed_hosts``: a tool that declared
    ``api.github.com`` is not redirected to another host unless it declared that one too
    (``*.githubusercontent.com``, say). An empty ``allowed_hosts`` reaches nothing.

    Args:
        fetcher: The shared fetcher (connection pools, resolver, limits).
        allowed_hosts: The tool's patterns, usually from `resolve_allowed_hosts`.
        policy: The personality's network policy; ``None`` means any public host.
    """

    def __init__(
        self,
        fetcher: SafeFetcher,
        allowed_hosts: tuple[str, ...],
        policy: NetworkPolicy | None,
    ) -> None:
        self._fetcher = fetcher
        self._allowed_hosts = tuple(allowed_hosts)
        self._policy = policy

    @property
    def allowed_hosts(self) -> tuple[str, ...]:
        """The host patterns this seam reaches."""
        return self._allowed_hosts

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
        """Fetch ``url`` if its host, and every redirect's, is declared and allowed; at most
        ``max_bytes`` of the body are read (never more than the fetcher's own cap).

        Raises:
            HostNotAllowedError: ``HOST_NOT_ALLOWED: <host> is not in the declared
                allowed_hosts``, or any refusal of `SafeFetcher.fetch`.
            TimeoutError: the deadline passed.
            OSError: the connection or the HTTP exchange failed.
        """
        return await self._fetcher.fetch(
            url,
            policy=self._policy,
            method=method,
            headers=headers,
            body=body,
            timeout_s=timeout_s,
            allowed_hosts=self._allowed_hosts,
            max_bytes=max_bytes,
        )
