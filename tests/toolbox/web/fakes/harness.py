"""A registry holding one ``web_search`` tool whose provider is a local fake.

The fakes listen on 127.0.0.1 under made-up names (`HOSTS`, resolved by a `StaticResolver`);
the network policy allows private addresses, as it must for a loopback server, and the keys
come from an `EnvSecretsResolver` over a dictionary, never from the process environment.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from fakes.providers import KEYS
from toolwire.capabilities.kinds.network import SafeFetcher, StaticResolver
from toolwire.capabilities.kinds.secrets._resolvers import EnvSecretsResolver
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ToolResult
from toolwire.toolbox.web.search import WebSearchSettings, web_search_tool

HOSTS = ("brave.test", "tavily.test", "exa.test", "searx.test", "ddg.test")
RESOLVER = StaticResolver({name: ["127.0.0.1"] for name in HOSTS})
ENV = {
    "BRAVE_API_KEY": KEYS["brave"],
    "TAVILY_API_KEY": KEYS["tavily"],
    "EXA_API_KEY": KEYS["exa"],
}


class Searcher:
    """Runs ``web_search`` calls through the whole pipeline."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    async def __call__(self, **args: Any) -> ToolResult:
        outcome = await self.registry.execute("web_search", args, ToolContext(session_id="s1"))
        return outcome.result


@asynccontextmanager
async def searcher(
    settings: WebSearchSettings,
    *,
    env: Mapping[str, str] = ENV,
    policy: NetworkPolicy | None = None,
) -> AsyncIterator[Searcher]:
    """A registry with ``web_search`` for ``settings``, keys from ``env``."""
    async with SafeFetcher(resolver=RESOLVER, timeout_s=10.0) as fetcher:
        backends = CapabilityBackends(
            fetcher=fetcher,
            network_policy=policy or NetworkPolicy(allow_private_urls=True),
            secrets_resolver=EnvSecretsResolver(environ=env),  # type: ignore[arg-type]
        )
        registry = ToolRegistry(backends=backends)
        registry.register(web_search_tool(settings, key_configured=lambda ref: True))
        yield Searcher(registry)
