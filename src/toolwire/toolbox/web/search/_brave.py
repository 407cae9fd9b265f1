"""Brave Search: ``GET /res/v1/web/search`` with the ``X-Subscription-Token`` header.

Request: ``q`` and ``count`` (1-20) as query parameters, ``Accept: application/json``.
Response: ``{"type": "search", "web": {"results": [{"title", "url", "description",
"page_age", "age", ...}]}, ...}``; a query without web results has no ``web`` key.
Descriptions mark matches with ``<strong>``. Priced per request: the "Search" plan is $5 per
1,000 requests (`DEFAULT_PRICE_USD`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlencode

from toolwire.capabilities.seams import FetchResponse
from toolwire.toolbox.web.search._failures import MALFORMED, ProviderFailure, load_json
from toolwire.toolbox.web.search._hits import make_hit
from toolwire.toolbox.web.search._protocol import HttpCall, SearchHit, SearchPage

__all__ = ["DEFAULT_ENDPOINT", "DEFAULT_PRICE_USD", "BraveProvider"]

DEFAULT_ENDPOINT = "https://api.search.brave.com/res/v1/web/search"
DEFAULT_PRICE_USD = 0.005
"""$5 per 1,000 requests (Brave Search API, "Search" plan)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class BraveProvider:
    """The Brave Search API (web results)."""

    endpoint: str = DEFAULT_ENDPOINT
    price_per_query_usd: float = DEFAULT_PRICE_USD
    key_ref: str | None = "providers/brave/apiKey"
    name: str = "brave"
    label: str = "Brave"
    max_results: int = 20
    status_meanings: Mapping[int, tuple[str, str]] = field(default_factory=dict)

    def price_usd(self, max_results: int) -> float | None:
        """The per-request price, whatever the count."""
        return self.price_per_query_usd

    def request(self, query: str, max_results: int, key: str | None) -> HttpCall:
        """``GET endpoint?q=...&count=...`` with the subscription token."""
        params = urlencode({"q": query, "count": str(max_results)})
        headers = {"accept": "application/json", "x-subscription-token": key or ""}
        return HttpCall(method="GET", url=f"{self.endpoint}?{params}", headers=headers)

    def parse(self, response: FetchResponse) -> SearchPage:
        """The ``web.results`` of the answer (none when ``web`` is absent)."""
        data = load_json(self.label, response)
        if not isinstance(data, dict):
            raise ProviderFailure(MALFORMED, "Brave answered JSON that is not an object")
        web = data.get("web")
        if web is None:
            return SearchPage(hits=())
        results = web.get("results") if isinstance(web, dict) else None
        if not isinstance(results, list):
            raise ProviderFailure(MALFORMED, "Brave's answer has no list at web.results")
        hits: list[SearchHit] = []
        for item in results:
            if not isinstance(item, dict):
                continue
            date = item.get("page_age") or item.get("age")
            hit = make_hit(item.get("title"), item.get("url"), item.get("description"), date)
            if hit is not None:
                hits.append(hit)
        return SearchPage(hits=tuple(hits))
