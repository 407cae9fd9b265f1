"""The provider a `WebSearchSettings` names, built with its endpoint, key ref and price."""

from __future__ import annotations

from toolwire.toolbox.web.search import brave, duckduckgo, exa, tavily
from toolwire.toolbox.web.search.protocol import SearchProvider
from toolwire.toolbox.web.search.searxng import SearxngProvider, searxng_endpoint
from toolwire.toolbox.web.search.settings import WebSearchSettings

__all__ = ["create_provider"]


def create_provider(settings: WebSearchSettings) -> SearchProvider:
    """The provider of ``settings``: its endpoint, price, key ref and region applied."""
    url, price, ref = settings.url, settings.price_per_query_usd, settings.secret_ref
    if settings.provider == "searxng":
        return SearxngProvider(endpoint=searxng_endpoint(url or ""))
    if settings.provider == "duckduckgo":
        return duckduckgo.DuckDuckGoProvider(
            endpoint=url or duckduckgo.DEFAULT_ENDPOINT, region=settings.region
        )
    if settings.provider == "brave":
        return brave.BraveProvider(
            endpoint=url or brave.DEFAULT_ENDPOINT,
            key_ref=ref,
            price_per_query_usd=brave.DEFAULT_PRICE_USD if price is None else price,
        )
    if settings.provider == "tavily":
        return tavily.TavilyProvider(
            endpoint=url or tavily.DEFAULT_ENDPOINT,
            key_ref=ref,
            price_per_query_usd=tavily.DEFAULT_PRICE_USD if price is None else price,
        )
    return exa.ExaProvider(
        endpoint=url or exa.DEFAULT_ENDPOINT,
        key_ref=ref,
        price_per_query_usd=exa.DEFAULT_PRICE_USD if price is None else price,
    )
