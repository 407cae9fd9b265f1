"""Tavily: ``POST /search`` with ``Authorization: Bearer <key>`` and a JSON body.

Request: ``{"query", "max_results" (0-20), "search_depth": "basic"}``. Response:
``{"query", "results": [{"title", "url", "content", "score", "published_date"?}],
"response_time", ...}``; ``published_date`` comes with the news topic only. A basic search
costs 1 credit, $0.008 pay-as-you-go (`DEFAULT_PRICE_USD`); 432 and 433 mean the plan's or
the pay-as-you-go limit is reached.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.capabilities.seams import FetchResponse
from toolwire.toolbox.web.search._failures import load_json
from toolwire.toolbox.web.search._hits import RawHit, listed_hits
from toolwire.toolbox.web.search._protocol import HttpCall, SearchPage

__all__ = ["DEFAULT_ENDPOINT", "DEFAULT_PRICE_USD", "TavilyProvider"]

DEFAULT_ENDPOINT = "https://api.tavily.com/search"
DEFAULT_PRICE_USD = 0.008
"""One credit (a basic search) at the pay-as-you-go price of $0.008 per credit."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TavilyProvider:
    """The Tavily Search API (basic depth)."""

    endpoint: str = DEFAULT_ENDPOINT
    price_per_query_usd: float = DEFAULT_PRICE_USD
    key_ref: str | None = "providers/tavily/apiKey"
    name: str = "tavily"
    label: str = "Tavily"
    max_results: int = 20
    status_meanings: Mapping[int, tuple[str, str]] = field(default_factory=dict)

    def price_usd(self, max_results: int) -> float | None:
        """One basic-search credit, whatever the count."""
        return self.price_per_query_usd

    def request(self, query: str, max_results: int, key: str | None) -> HttpCall:
        """``POST endpoint`` with the bearer key and the JSON body."""
        body = {"query": query, "max_results": max_results, "search_depth": "basic"}
        headers = {
            "authorization": f"Bearer {key or ''}",
            "content-type": "application/json",
            "accept": "application/json",
        }
        return HttpCall(
            method="POST", url=self.endpoint, headers=headers, body=json.dumps(body).encode()
        )

    def parse(self, response: FetchResponse) -> SearchPage:
        """The ``results`` of the answer."""
        data = load_json(self.label, response)
        return SearchPage(hits=listed_hits(data, "Tavily", _fields))


def _fields(item: dict[str, Any]) -> RawHit:
    return (item.get("title"), item.get("url"), item.get("content"), item.get("published_date"))
