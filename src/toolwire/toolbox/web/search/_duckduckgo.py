"""DuckDuckGo, without a key, through the ``ddgs`` metasearch library's DuckDuckGo engine.

``ddgs`` (``pip install 'toolwire[web]'``) knows DuckDuckGo's HTML endpoint: the form it posts
(`Duckduckgo.build_payload`: ``q``, ``b``, ``l`` for the region) and how to read the result
page (`Duckduckgo.extract_results`, then its filter of ads). The HTTP in between is ours:
``POST https://html.duckduckgo.com/html/`` goes through the network seam like every other
provider, so the network policy applies (``ddgs``'s own client would bypass it). Result links
wrapped in DuckDuckGo's ``/l/?uddg=`` redirect are unwrapped. DuckDuckGo answers 202 with an
"anomaly" page when it suspects a bot: that is reported as ``rate_limited``. No dates, no price.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

from toolwire.capabilities.seams import FetchResponse
from toolwire.toolbox.web.search._failures import MALFORMED, RATE_LIMITED, ProviderFailure
from toolwire.toolbox.web.search._hits import make_hit
from toolwire.toolbox.web.search._protocol import HttpCall, SearchHit, SearchPage
from toolwire.version import __version__

__all__ = ["DEFAULT_ENDPOINT", "DEFAULT_REGION", "DuckDuckGoProvider", "ddgs_installed"]

DEFAULT_ENDPOINT = "https://html.duckduckgo.com/html/"
DEFAULT_REGION = "us-en"
"""``ddgs``'s default region; ``wt-wt`` means no region."""
_MEANINGS = {
    403: (RATE_LIMITED, "turned the request away, as it does with clients it takes for bots"),
}
_USER_AGENT = f"Mozilla/5.0 (compatible; toolwire/{__version__}; +web_search)"


def ddgs_installed() -> bool:
    """Whether the ``ddgs`` library can be imported."""
    return importlib.util.find_spec("ddgs") is not None


@functools.cache
def _engine() -> Any:
    """``ddgs``'s DuckDuckGo engine: used for its payload and its parser, never to send."""
    from ddgs.engines.duckduckgo import Duckduckgo

    return Duckduckgo()


@dataclass(frozen=True, kw_only=True, slots=True)
class DuckDuckGoProvider:
    """DuckDuckGo's HTML results, read by ``ddgs``."""

    endpoint: str = DEFAULT_ENDPOINT
    region: str = DEFAULT_REGION
    key_ref: str | None = None
    name: str = "duckduckgo"
    label: str = "DuckDuckGo"
    max_results: int = 20
    status_meanings: Mapping[int, tuple[str, str]] = field(default_factory=lambda: _MEANINGS)

    def price_usd(self, max_results: int) -> float | None:
        """Nothing: DuckDuckGo does not bill."""
        return None

    def request(self, query: str, max_results: int, key: str | None) -> HttpCall:
        """The form ``ddgs`` builds, posted to the HTML endpoint."""
        payload = _engine().build_payload(
            query=query, region=self.region, safesearch="moderate", timelimit=None, page=1
        )
        headers = {
            "content-type": "application/x-www-form-urlencoded",
            "accept": "text/html,application/xhtml+xml",
            "user-agent": _USER_AGENT,
            "referer": _origin(self.endpoint),
        }
        return HttpCall(
            method="POST", url=self.endpoint, headers=headers, body=urlencode(payload).encode()
        )

    def parse(self, response: FetchResponse) -> SearchPage:
        """The results ``ddgs`` reads from the page.

        Raises:
            ProviderFailure: ``rate_limited`` for the anomaly page, ``malformed_response``
                for a body that is not an HTML page.
        """
        text = response.text
        if response.status == 202 or "anomaly-modal" in text:
            raise ProviderFailure(
                RATE_LIMITED,
                f"DuckDuckGo answered its bot-check page (HTTP {response.status}) instead of "
                "results; wait a while, or configure another web_search provider",
            )
        if "<" not in text[:4096]:
            raise ProviderFailure(
                MALFORMED, f"DuckDuckGo answered HTTP {response.status} without an HTML page"
            )
        engine = _engine()
        try:
            results = engine.post_extract_results(engine.extract_results(text))
        except Exception as exc:  # lxml's parser errors have no common base worth naming
            raise ProviderFailure(
                MALFORMED, f"DuckDuckGo's page could not be read: {type(exc).__name__}"
            ) from None
        hits: list[SearchHit] = []
        for result in results:
            url = _unwrap(str(getattr(result, "href", "")), self.endpoint)
            hit = make_hit(getattr(result, "title", ""), url, getattr(result, "body", ""))
            if hit is not None:
                hits.append(hit)
        return SearchPage(hits=tuple(hits))


def _unwrap(href: str, endpoint: str) -> str:
    """The target of a ``duckduckgo.com/l/?uddg=<url>&rut=...`` redirect; other links as is.

    ``ddgs`` has already percent-decoded the link, so the target's own query is in the clear:
    it runs from ``uddg=`` to DuckDuckGo's trailing ``&rut=`` parameter.
    """
    absolute = urljoin(endpoint, href)
    parts = urlsplit(absolute)
    if not parts.path.startswith("/l/") or "uddg=" not in parts.query:
        return absolute
    target = parts.query.split("uddg=", 1)[1]
    return target.split("&rut=", 1)[0]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"
