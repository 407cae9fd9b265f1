"""The provider a `WebSearchSettings` names, built with its endpoint and price."""

from __future__ import annotations

from toolwire.toolbox.web.search.brave import BraveProvider
from toolwire.toolbox.web.search.duckduckgo import DuckDuckGoProvider
from toolwire.toolbox.web.search.exa import ExaProvider
from toolwire.toolbox.web.search.protocol import SearchProvider
from toolwire.toolbox.web.search.searxng import SearxngProvider, searxng_endpoint
from toolwire.toolbox.web.search.settings import WebSearchSettings
from toolwire.toolbox.web.search.tavily import TavilyProvider

__all__ = ["create_provider"]


def create_provider(settings: WebSearchSettings) -> SearchProvider:
    """The provider of ``settings``: its endpoint, price, key ref and region applied."""
    ref = settings.secret_ref
    if settings.provider == "searxng":
        assert settings.url is not None  # WebSearchSettings refuses searxng without one
        return SearxngProvider(endpoint=searxng_endpoint(settings.url))
    if settings.provider == "duckduckgo":
        if settings.url:
            return DuckDuckGoProvider(endpoint=settings.url, region=settings.region)
        return DuckDuckGoProvider(region=settings.region)
    keyed = {"brave": BraveProvider, "tavily": TavilyProvider, "exa": ExaProvider}
    factory = keyed[settings.provider]
    options: dict[str, object] = {"key_ref": ref}
    if settings.url:
        options["endpoint"] = settings.url
    if settings.price_per_query_usd is not None:
        options["price_per_query_usd"] = settings.price_per_query_usd
    provider: SearchProvider = factory(**options)  # type: ignore[arg-type]
    return provider
