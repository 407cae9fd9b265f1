"""``web_search`` (toolset ``web``): the top results of a web search, from one provider.

```python
from toolwire.toolbox.web import WebSearchSettings, web_search_tool

registry.register(web_search_tool(WebSearchSettings(provider="brave")))  # key: BRAVE_API_KEY
```

The provider's key comes through the secrets capability (``ctx.secrets_resolver``, the
tool declares only its provider's ref) and its request through the network capability
(``ctx.scoped_fetch``: `SafeFetcher` under the call's network policy, granted the provider's
host only). ``is_available`` is false while a keyed provider has no key, or DuckDuckGo has no
``ddgs``, and says why (`toolwire.availability.Gate`): a call then answers ``not_available``
with ``reason="missing_api_key"`` and the variable to set (``missing_dependency`` for
``ddgs``), and ``toolwire tools`` and the serve banner list the tool as withheld. Failures
answer with the stable codes of `toolwire.toolbox.web.search._failures`; what a result says is
written by strangers, so the tool is ``output_is_untrusted``.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from toolwire.availability import Gate, Unavailable
from toolwire.capabilities.kind import Capability
from toolwire.capabilities.kinds.network.kind import network
from toolwire.capabilities.kinds.secrets._resolvers import DEFAULT_ENV_SECRETS
from toolwire.capabilities.kinds.secrets.kind import secrets
from toolwire.capabilities.seams import FetchResponse, ScopedFetch
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import HostNotAllowedError, SecretNotDeclaredError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.threads import run_in_worker
from toolwire.tool_options import ToolOptions
from toolwire.toolbox._common import missing_seam, refused
from toolwire.toolbox.web.search._duckduckgo import ddgs_installed
from toolwire.toolbox.web.search._failures import ProviderFailure, status_failure
from toolwire.toolbox.web.search._protocol import SearchPage, SearchProvider
from toolwire.toolbox.web.search._providers import create_provider
from toolwire.toolbox.web.search._render import render_text, structured
from toolwire.toolbox.web.search._settings import MAX_RESULTS_LIMIT, WebSearchSettings
from toolwire.toolbox.web.search.keys import key_configured
from toolwire.tools import Tool, ToolAnnotations

__all__ = ["MAX_QUERY_CHARS", "MISSING_API_KEY", "web_search_tool"]

MAX_QUERY_CHARS = 2_000
"""The longest query accepted (providers cap lower: Brave at 400 characters)."""
MISSING_API_KEY = "missing_api_key"
"""The reason a keyed provider without its key answers, listed or called."""


def web_search_tool(
    settings: WebSearchSettings | None = None,
    *,
    key_configured: Callable[[str], bool] = key_configured,
) -> Tool:
    """A ``web_search`` tool for ``settings`` (`WebSearchSettings.from_env` by default).

    Args:
        settings: The provider and its options.
        key_configured: Whether a secret ref has a value, asked by ``is_available`` (the
            default looks in the environment and the default vault, see
            `toolwire.toolbox.web.search.keys`).
    """
    config = settings or WebSearchSettings.from_env()
    provider = create_provider(config)
    ref = provider.key_ref
    declared: list[Capability] = [network([_host(provider.endpoint)])]
    if ref is not None:
        declared.append(secrets([ref]))

    @tool(
        capabilities=declared,
        options=ToolOptions(
            toolset="web",
            output_is_untrusted=True,
            is_available=_availability(provider, key_configured),
            timeout_s=config.timeout_s + 15,
            annotations=ToolAnnotations(title="Search the web", read_only=True, open_world=True),
        ),
    )
    async def web_search(
        ctx: ToolContext, query: str, max_results: int = config.max_results
    ) -> ToolResult:
        """Search the web. Returns the top results, each with its title, URL, a snippet and
        its date when the search engine gives one; read a result with fetch_url.

        Args:
            query: What to search for (quotes and site: work with most engines).
            max_results: How many results to return (1-20).
        """
        problem = _check_args(query, max_results)
        if problem is not None:
            return problem
        seam = ctx.scoped_fetch
        if seam is None:
            return missing_seam("web_search", "network access")
        key = await _key(ctx, provider)
        if isinstance(key, Err):
            return key
        return await _search(seam, provider, config, query.strip(), max_results, key)

    return web_search


def _availability(provider: SearchProvider, probe: Callable[[str], bool]) -> Gate:
    """Offered while the provider's key is there (``missing_api_key`` names it when it is
    not), or while DuckDuckGo's ``ddgs`` is installed."""
    ref = provider.key_ref
    if ref is not None:
        no_key = Unavailable(reason=MISSING_API_KEY, message=_no_key_message(provider, ref))
        return Gate(lambda: None if probe(ref) else no_key)
    if provider.name == "duckduckgo" and not ddgs_installed():
        missing = Unavailable(
            reason="missing_dependency",
            message="web_search: DuckDuckGo needs the ddgs library: pip install 'toolwire[web]' "
            "(or configure another provider in [web_search])",
        )
        return Gate(lambda: missing)
    return Gate(lambda: None)


def _no_key_message(provider: SearchProvider, ref: str) -> str:
    variable = DEFAULT_ENV_SECRETS.get(ref)
    where = f"set the environment variable {variable}" if variable else f"give {ref} a value"
    return (
        f"web_search: no API key for {provider.label}: {where}, or store it with "
        f"`toolwire secret set {ref}`; then the tool is offered"
    )


def _check_args(query: str, max_results: int) -> Err | None:
    if not query.strip():
        return Err("query is empty: say what to search for", ErrorCode.INPUT_INVALID, field="query")
    if len(query) > MAX_QUERY_CHARS:
        return Err(
            f"query is {len(query):,} characters; the most is {MAX_QUERY_CHARS:,}",
            ErrorCode.INPUT_INVALID,
            field="query",
        )
    if not 1 <= max_results <= MAX_RESULTS_LIMIT:
        return Err(
            f"max_results must be 1-{MAX_RESULTS_LIMIT}, got {max_results}",
            ErrorCode.INPUT_INVALID,
            field="max_results",
        )
    return None


async def _key(ctx: ToolContext, provider: SearchProvider) -> str | Err | None:
    ref = provider.key_ref
    if ref is None:
        return None
    resolver = ctx.secrets_resolver
    if resolver is None:
        return missing_seam("web_search", "the secrets capability (for the API key)")
    try:
        return await resolver.get(ref)
    except (KeyError, SecretNotDeclaredError):
        return Err(_no_key_message(provider, ref), ErrorCode.NOT_AVAILABLE, reason=MISSING_API_KEY)


async def _search(
    seam: ScopedFetch,
    provider: SearchProvider,
    config: WebSearchSettings,
    query: str,
    max_results: int,
    key: str | None,
) -> ToolResult:
    count = min(max_results, provider.max_results)
    call = await run_in_worker(lambda: provider.request(query, count, key))  # ddgs loads slowly
    try:
        response = await seam.fetch(
            call.url,
            method=call.method,
            headers=call.headers,
            body=call.body,
            timeout_s=config.timeout_s,
        )
    except HostNotAllowedError as exc:
        return refused(exc)
    except TimeoutError:
        return Err(
            f"{provider.label} did not answer within {config.timeout_s:g} s", cause="timeout"
        )
    except OSError as exc:
        return Err(f"reaching {provider.label} failed: {exc}", cause="connection_failed")
    try:
        page = await run_in_worker(lambda: _read(provider, response))
    except ProviderFailure as failure:
        return failure.to_err(key)
    hits = page.hits[:max_results]
    cost = page.cost_usd if page.cost_usd is not None else provider.price_usd(max_results)
    return Ok(
        render_text(provider.label, query, hits, page.notes),
        structured=structured(provider.name, query, hits, cost, page.notes),
        cost_usd=cost,
    )


def _read(provider: SearchProvider, response: FetchResponse) -> SearchPage:
    failure = status_failure(provider.label, response, provider.status_meanings)
    if failure is not None:
        raise failure
    return provider.parse(response)


def _host(url: str) -> str:
    host = urlsplit(url).hostname or ""
    return f"[{host}]" if ":" in host else host
