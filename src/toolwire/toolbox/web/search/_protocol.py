"""The provider protocol of ``web_search``: what a provider sends, and what it reads back.

A provider is two pure functions around one HTTP exchange: `SearchProvider.request` turns
a query into an `HttpCall` (method, URL, headers, body), the tool sends it through the
network seam (`SafeFetcher` under the call's network policy), and `SearchProvider.parse`
turns a 2xx `FetchResponse` into a `SearchPage`. Statuses of 300 and over never reach
``parse``: `toolwire.toolbox.web.search._failures.status_failure` answers them the same way
for every provider. Neither function touches the network, so each can be tested alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from toolwire.capabilities.seams import FetchResponse

__all__ = ["HttpCall", "SearchHit", "SearchPage", "SearchProvider"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchHit:
    """One search result.

    Attributes:
        title: The page title, plain text.
        url: An ``http(s)`` URL.
        snippet: What the provider quotes from the page, plain text (may be empty).
        date: The publication or last-change date the provider gives, as it gives it
            (ISO 8601 for most, ``"2 days ago"`` for some Brave results); ``None`` when none.
    """

    title: str
    url: str
    snippet: str
    date: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The hit as JSON-able data (``structured["results"]`` items)."""
        return {"title": self.title, "url": self.url, "snippet": self.snippet, "date": self.date}


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchPage:
    """What a provider answered.

    Attributes:
        hits: The results, best first.
        cost_usd: The cost the provider itself reported for this request (Exa's
            ``costDollars``); ``None`` when it reports none and the configured price applies.
        notes: What the model should know about the answer (SearXNG engines that did not
            answer).
    """

    hits: tuple[SearchHit, ...]
    cost_usd: float | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class HttpCall:
    """One HTTP request to a provider."""

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | None = None


@runtime_checkable
class SearchProvider(Protocol):
    """A search API: how to ask it, how to read its answer, what it needs and costs."""

    @property
    def name(self) -> str:
        """The provider's configuration name (``brave``, ``searxng``, ...)."""
        ...

    @property
    def label(self) -> str:
        """The provider's display name (``Brave``, ``SearXNG``)."""
        ...

    @property
    def key_ref(self) -> str | None:
        """The secret ref of its API key; ``None`` for a provider that needs none."""
        ...

    @property
    def endpoint(self) -> str:
        """The URL every request goes to (its host is the tool's only network grant)."""
        ...

    @property
    def status_meanings(self) -> Mapping[int, tuple[str, str]]:
        """Statuses this API uses its own way: status → ``(stable code, what it means)``."""
        ...

    @property
    def max_results(self) -> int:
        """The most results one request can return."""
        ...

    def price_usd(self, max_results: int) -> float | None:
        """The cost of one request for ``max_results``; ``None`` for a free provider."""
        ...

    def request(self, query: str, max_results: int, key: str | None) -> HttpCall:
        """The request for ``query`` (``key`` is the API key, or ``None`` without one)."""
        ...

    def parse(self, response: FetchResponse) -> SearchPage:
        """The results of a 2xx response.

        Raises:
            ProviderFailure: the body is not what the API documents, or says the request
                failed (DuckDuckGo's 202 anomaly page).
        """
        ...
