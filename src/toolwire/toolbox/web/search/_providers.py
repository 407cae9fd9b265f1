"""The provider a `WebSearchSettings` names, built with its endpoint, key ref and price."""

from __future__ import annotations

from toolwire.toolbox.web.search._brave import DEFAULT_ENDPOINT as BRAVE_ENDPOINT
from toolwire.toolbox.web.search._brave import DEFAULT_PRICE_USD as BRAVE_PRICE
from toolwire.toolbox.web.search._brave import BraveProvider
from toolwire.toolbox.web.search._duckduckgo import DEFAULT_ENDPOINT as DDG_ENDPOINT
from toolwire.toolbox.web.search._duckduckgo import DuckDuckGoProvider
from toolwire.toolbox.web.search._exa import DEFAULT_ENDPOINT as EXA_ENDPOINT
from toolwire.toolbox.web.search._exa import DEFAULT_PRICE_USD as EXA_PRICE
from toolwire.toolbox.web.search._exa import ExaProvider
from toolwire.toolbox.web.search._protocol import SearchProvider
from toolwire.toolbox.web.search._searxng import SearxngProvider, searxng_endpoint
from toolwire.toolbox.web.search._settings import WebSearchSettings
from toolwire.toolbox.web.search._tavily import DEFAULT_ENDPOINT as TAVILY_ENDPOINT
from toolwire.toolbox.web.search._tavily import DEFAULT_PRICE_USD as TAVILY_PRICE
from toolwire.toolbox.web.search._tavily import TavilyProvider

__all__ = ["create_provider"]


def create_provider(settings: WebSearchSettings) -> SearchProvider:
    """The provider of ``settings``: its endpoint, price, key ref and region applied."""
    url, price, ref = settings.url, settings.price_per_query_usd, settings.secret_ref
    if settings.provider == "searxng":
        return SearxngProvider(endpoint=searxng_endpoint(url or ""))
    if settings.provider == "duckduckgo":
        return DuckDuckGoProvider(endpoint=url or DDG_ENDPOINT, region=settings.region)
    if settings.provider == "brave":
        return BraveProvider(
            endpoint=url or BRAVE_ENDPOINT,
            key_ref=ref,
            price_per_query_usd=BRAVE_PRICE if price is None else price,
        )
    if settings.provider == "tavily":
        return TavilyProvider(
            endpoint=url or TAVILY_ENDPOINT,
            key_ref=ref,
            price_per_query_usd=TAVILY_PRICE if price is None else price,
        )
    return ExaProvider(
        endpoint=url or EXA_ENDPOINT,
        key_ref=ref,
        price_per_query_usd=EXA_PRICE if price is None else price,
    )
