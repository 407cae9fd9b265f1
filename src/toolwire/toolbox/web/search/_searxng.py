"""A self-hosted SearXNG: ``GET <base>/search?q=...&format=json``.

The instance must list ``json`` under ``search.formats`` in its ``settings.yml``; without it
SearXNG answers 403, which is reported as such (not as a refused key). Response: ``{"query",
"number_of_results", "results": [{"url", "title", "content", "publishedDate"?, "engine",
"engines", "score", ...}], "answers", "suggestions", "unresponsive_engines": [[name,
reason], ...]}``. SearXNG takes no result count: the tool keeps the first ``max_results``.
Free: no key and no price. An instance on a private address is reached only when the
network policy has ``allow_private_urls``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from toolwire.capabilities.seams import FetchResponse
from toolwire.toolbox.web.search._failures import (
    MALFORMED,
    REJECTED,
    UNAUTHORIZED,
    ProviderFailure,
    load_json,
)
from toolwire.toolbox.web.search._hits import make_hit, plain
from toolwire.toolbox.web.search._protocol import HttpCall, SearchHit, SearchPage

__all__ = ["SearxngProvider", "searxng_endpoint"]

_MEANINGS = {
    401: (UNAUTHORIZED, "asks for credentials web_search does not send (a proxy in front of it?)"),
    403: (REJECTED, "refused the JSON format: add json to search.formats in its settings.yml"),
}


def searxng_endpoint(base_url: str) -> str:
    """The search URL of the instance at ``base_url`` (``.../search`` kept as is)."""
    base = base_url.rstrip("/")
    return base if base.endswith("/search") else f"{base}/search"


@dataclass(frozen=True, kw_only=True, slots=True)
class SearxngProvider:
    """A SearXNG instance's JSON search API."""

    endpoint: str
    key_ref: str | None = None
    name: str = "searxng"
    label: str = "SearXNG"
    max_results: int = 20
    status_meanings: Mapping[int, tuple[str, str]] = field(default_factory=lambda: _MEANINGS)

    def price_usd(self, max_results: int) -> float | None:
        """Nothing: a self-hosted instance does not bill."""
        return None

    def request(self, query: str, max_results: int, key: str | None) -> HttpCall:
        """``GET endpoint?q=...&format=json``."""
        params = urlencode({"q": query, "format": "json"})
        return HttpCall(
            method="GET", url=f"{self.endpoint}?{params}", headers={"accept": "application/json"}
        )

    def parse(self, response: FetchResponse) -> SearchPage:
        """The ``results``, and a note naming the engines that did not answer."""
        data = load_json(self.label, response)
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise ProviderFailure(MALFORMED, "SearXNG's answer has no results list")
        hits: list[SearchHit] = []
        for item in results:
            if not isinstance(item, dict):
                continue
            hit = make_hit(
                item.get("title"), item.get("url"), item.get("content"), item.get("publishedDate")
            )
            if hit is not None:
                hits.append(hit)
        return SearchPage(hits=tuple(hits), notes=_unresponsive(data))


def _unresponsive(data: dict[str, Any]) -> tuple[str, ...]:
    engines = data.get("unresponsive_engines")
    if not isinstance(engines, list) or not engines:
        return ()
    named = []
    for entry in engines[:10]:
        if isinstance(entry, list) and entry:
            reason = plain(entry[1]) if len(entry) > 1 else ""
            named.append(f"{plain(entry[0])} ({reason})" if reason else plain(entry[0]))
    return (f"engines that did not answer: {', '.join(named)}",) if named else ()
