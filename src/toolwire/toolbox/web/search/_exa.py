"""Exa: ``POST /search`` with the ``x-api-key`` header and a JSON body.

Request: ``{"query", "numResults", "type": "auto", "contents": {"highlights":
{"maxCharacters": 600}}}``. Response: ``{"requestId", "results": [{"id", "title", "url",
"publishedDate", "author", "highlights": [...], "text"?, "summary"?}], "costDollars":
{"total": ...}, ...}``. Exa reports each request's cost, used as ``cost_usd``; without it the
price is $7 per 1,000 requests of up to 10 results with contents, plus $1 per 1,000 results
beyond 10 (`DEFAULT_PRICE_USD`, `EXTRA_RESULT_PRICE_USD`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.capabilities.seams import FetchResponse
from toolwire.toolbox.web.search._failures import load_json
from toolwire.toolbox.web.search._hits import MAX_SNIPPET_CHARS, RawHit, listed_hits
from toolwire.toolbox.web.search._protocol import HttpCall, SearchPage

__all__ = ["DEFAULT_ENDPOINT", "DEFAULT_PRICE_USD", "EXTRA_RESULT_PRICE_USD", "ExaProvider"]

DEFAULT_ENDPOINT = "https://api.exa.ai/search"
DEFAULT_PRICE_USD = 0.007
"""A search with contents, up to 10 results: $7 per 1,000 requests."""
EXTRA_RESULT_PRICE_USD = 0.001
"""Each result beyond 10: $1 per 1,000."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ExaProvider:
    """The Exa search API (auto type, highlights as snippets)."""

    endpoint: str = DEFAULT_ENDPOINT
    price_per_query_usd: float = DEFAULT_PRICE_USD
    key_ref: str | None = "providers/exa/apiKey"
    name: str = "exa"
    label: str = "Exa"
    max_results: int = 20
    status_meanings: Mapping[int, tuple[str, str]] = field(default_factory=dict)

    def price_usd(self, max_results: int) -> float | None:
        """The request price plus the results beyond 10 (when Exa reports no cost)."""
        extra = max(0, max_results - 10) * EXTRA_RESULT_PRICE_USD
        return round(self.price_per_query_usd + extra, 6)

    def request(self, query: str, max_results: int, key: str | None) -> HttpCall:
        """``POST endpoint`` with the key header and the JSON body."""
        body = {
            "query": query,
            "numResults": max_results,
            "type": "auto",
            "contents": {"highlights": {"maxCharacters": MAX_SNIPPET_CHARS}},
        }
        headers = {
            "x-api-key": key or "",
            "content-type": "application/json",
            "accept": "application/json",
        }
        return HttpCall(
            method="POST", url=self.endpoint, headers=headers, body=json.dumps(body).encode()
        )

    def parse(self, response: FetchResponse) -> SearchPage:
        """The ``results`` of the answer, and ``costDollars.total`` when present."""
        data = load_json(self.label, response)
        hits = listed_hits(data, "Exa", _fields)
        return SearchPage(hits=hits, cost_usd=_cost(data))


def _fields(item: dict[str, Any]) -> RawHit:
    return (item.get("title"), item.get("url"), _snippet(item), item.get("publishedDate"))


def _snippet(item: dict[str, Any]) -> str:
    highlights = item.get("highlights")
    if isinstance(highlights, list):
        parts = [h for h in highlights if isinstance(h, str) and h.strip()]
        if parts:
            return " … ".join(parts)
    for key in ("summary", "text"):
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _cost(data: dict[str, Any]) -> float | None:
    cost = data.get("costDollars")
    total = cost.get("total") if isinstance(cost, dict) else None
    if isinstance(total, int | float) and not isinstance(total, bool) and total >= 0:
        return float(total)
    return None
