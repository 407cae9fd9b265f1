"""`WebSearchSettings`: which provider ``web_search`` asks, where, for how long, at what price.

```toml
[web_search]
provider = "brave"                 # brave | tavily | exa | searxng | duckduckgo (the default)
url = "https://searx.example.org"  # required for searxng; for the others, overrides the endpoint
max_results = 5                    # results when the model asks for no number (1-20)
timeout_s = 20
price_per_query_usd = 0.005        # overrides the provider's documented price
region = "us-en"                   # DuckDuckGo's region (wt-wt: none)
key_ref = "providers/brave/apiKey" # the secret holding the key (this is the default)
```

Keys never go in this table: they come through the secrets capability, by default from
``BRAVE_API_KEY`` / ``TAVILY_API_KEY`` / ``EXA_API_KEY`` or the vault
(``~/.toolwire/secrets``). `WebSearchSettings.from_table` reads the table (unknown keys are
refused); `WebSearchSettings.from_env` reads ``TOOLWIRE_WEB_SEARCH_PROVIDER`` and
``TOOLWIRE_WEB_SEARCH_URL``, which `web_tools` uses when given no settings;
`WebSearchSettings.from_config` is the table with those variables winning (what
``toolwire serve`` uses).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.capabilities.kinds.secrets.seam import validate_ref
from toolwire.errors import ConfigurationError
from toolwire.toolbox.web.search._duckduckgo import DEFAULT_REGION

__all__ = [
    "DEFAULT_PROVIDER",
    "MAX_RESULTS_LIMIT",
    "PROVIDERS",
    "PROVIDER_ENV",
    "TABLE_KEYS",
    "URL_ENV",
    "WebSearchSettings",
]

PROVIDERS = ("brave", "tavily", "exa", "searxng", "duckduckgo")
"""The provider names ``provider`` accepts."""
KEYED_PROVIDERS = frozenset({"brave", "tavily", "exa"})
DEFAULT_PROVIDER = "duckduckgo"
"""Needs no key (only ``ddgs``, part of ``toolwire[web]``)."""
MAX_RESULTS_LIMIT = 20
"""The most results one call may ask for."""
PROVIDER_ENV = "TOOLWIRE_WEB_SEARCH_PROVIDER"
URL_ENV = "TOOLWIRE_WEB_SEARCH_URL"
TABLE_KEYS = frozenset(
    {"provider", "url", "max_results", "timeout_s", "price_per_query_usd", "region", "key_ref"}
)
"""The keys of the ``[web_search]`` table."""


@dataclass(frozen=True, kw_only=True, slots=True)
class WebSearchSettings:
    """How ``web_search`` searches.

    Attributes:
        provider: One of `PROVIDERS`.
        url: The endpoint (SearXNG: the instance's base URL, required); ``None`` uses the
            provider's public endpoint.
        max_results: Results returned when the model gives no ``max_results``.
        timeout_s: Deadline of one provider request.
        price_per_query_usd: The price of one request, as ``cost_usd``; ``None`` uses the
            provider's documented price (Exa's own reported cost wins over both).
        region: DuckDuckGo's region code.
        key_ref: The secret ref of the API key; ``None`` uses ``providers/<name>/apiKey``.
    """

    provider: str = DEFAULT_PROVIDER
    url: str | None = None
    max_results: int = 5
    timeout_s: float = 20.0
    price_per_query_usd: float | None = None
    region: str = DEFAULT_REGION
    key_ref: str | None = None

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ConfigurationError(
                f"web_search provider {self.provider!r} is unknown; choose one of {list(PROVIDERS)}"
            )
        if self.provider == "searxng" and not self.url:
            raise ConfigurationError(
                "web_search provider 'searxng' needs the instance's url, e.g. "
                "url = 'http://127.0.0.1:8888' under [web_search] (or $TOOLWIRE_WEB_SEARCH_URL)"
            )
        if self.url is not None and not self.url.lower().startswith(("http://", "https://")):
            raise ConfigurationError(f"web_search url must be http(s)://..., got {self.url!r}")
        if not 1 <= self.max_results <= MAX_RESULTS_LIMIT:
            raise ConfigurationError(
                f"web_search max_results must be 1-{MAX_RESULTS_LIMIT}, got {self.max_results}"
            )
        if not self.timeout_s > 0:
            raise ConfigurationError(f"web_search timeout_s must be > 0, got {self.timeout_s}")
        if self.price_per_query_usd is not None and not self.price_per_query_usd >= 0:
            raise ConfigurationError(
                f"web_search price_per_query_usd must be >= 0, got {self.price_per_query_usd}"
            )
        self._check_key_ref()

    def _check_key_ref(self) -> None:
        if self.key_ref is None:
            return
        if self.provider not in KEYED_PROVIDERS:
            raise ConfigurationError(
                f"web_search key_ref: {self.provider} takes no API key; remove key_ref"
            )
        try:
            validate_ref(self.key_ref)
        except ValueError as exc:
            raise ConfigurationError(f"web_search key_ref: {exc}") from None

    @property
    def secret_ref(self) -> str | None:
        """The ref of the provider's key (``None`` for a provider without one)."""
        if self.provider not in KEYED_PROVIDERS:
            return None
        return self.key_ref or f"providers/{self.provider}/apiKey"

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> WebSearchSettings:
        """Settings from a ``[web_search]`` table.

        Raises:
            ConfigurationError: an unknown key, or a value of the wrong type or range.
        """
        unknown = sorted(set(table) - TABLE_KEYS)
        if unknown:
            raise ConfigurationError(
                f"[web_search]: unknown key(s) {unknown}; expected some of {sorted(TABLE_KEYS)}"
            )
        values: dict[str, Any] = {}
        for key in ("provider", "url", "region", "key_ref"):
            if key in table:
                values[key] = _typed(table[key], key, str, "a string")
        if "max_results" in table:
            values["max_results"] = _typed(table["max_results"], "max_results", int, "an integer")
        for key in ("timeout_s", "price_per_query_usd"):
            if key in table:
                values[key] = float(_typed(table[key], key, int | float, "a number"))
        return cls(**values)

    @classmethod
    def from_config(
        cls, table: Mapping[str, Any] | None, env: Mapping[str, str] | None = None
    ) -> WebSearchSettings:
        """The ``[web_search]`` table with ``TOOLWIRE_WEB_SEARCH_PROVIDER`` and
        ``TOOLWIRE_WEB_SEARCH_URL`` winning, as every ``TOOLWIRE_*`` variable wins over the
        file. A variable naming another provider drops the table's ``url``, ``key_ref`` and
        ``price_per_query_usd``: they were the other provider's.

        Raises:
            ConfigurationError: as `from_table` and `from_env`.
        """
        env = os.environ if env is None else env
        merged = dict(table or {})
        provider = env.get(PROVIDER_ENV, "").strip().lower()
        if provider and provider != merged.get("provider", DEFAULT_PROVIDER):
            for key in ("url", "key_ref", "price_per_query_usd"):
                merged.pop(key, None)
        if provider:
            merged["provider"] = provider
        url = env.get(URL_ENV, "").strip()
        if url:
            merged["url"] = url
        return cls.from_table(merged)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WebSearchSettings:
        """The defaults, with ``TOOLWIRE_WEB_SEARCH_PROVIDER`` and ``TOOLWIRE_WEB_SEARCH_URL``
        from ``env`` (``os.environ`` by default).

        Raises:
            ConfigurationError: an unknown provider, or SearXNG without a URL.
        """
        env = os.environ if env is None else env
        provider = env.get(PROVIDER_ENV, "").strip().lower() or DEFAULT_PROVIDER
        url = env.get(URL_ENV, "").strip() or None
        return cls(provider=provider, url=url)


def _typed(value: Any, key: str, kind: Any, described: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ConfigurationError(
            f"[web_search] {key}: expected {described}, got {type(value).__name__}"
        )
    return value
