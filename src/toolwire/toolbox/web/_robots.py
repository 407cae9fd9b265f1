"""robots.txt for autonomous fetches, read as RFC 9309 says, cached per site.

```python
robots = RobotsCheck(settings)
verdict = await robots.check(ctx.scoped_fetch, "https://example.com/private/page")
if not verdict.allowed:
    print(verdict.reason)
```

The site's ``/robots.txt`` is fetched through the same seam as the page (the network policy
applies), parsed by Protego (Scrapy's RFC 9309 parser: longest match wins, ``Allow`` beats
``Disallow`` on a tie, ``*`` and ``$`` wildcards) and matched against the configured user
agent. What its status means (RFC 9309 §2.3.1): 2xx, the rules; 401 or 403, every path
disallowed (as the reference MCP fetch server does); another 4xx, no rules; 5xx or an
unreachable server, every path disallowed ("complete disallow"). A robots.txt the network
policy refuses (a redirect to a private address, say) counts as absent: the page itself is
still checked by the policy. Answers are kept per origin for ``robots_ttl_s`` seconds, for the
``robots_cache_size`` sites used most recently.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import urlsplit

from toolwire.capabilities.seams import ScopedFetch
from toolwire.errors import HostNotAllowedError
from toolwire.toolbox.web._settings import FetchSettings

__all__ = ["RobotsCheck", "RobotsVerdict"]

_MAX_ROBOTS_BYTES = 512 * 1024


@dataclass(frozen=True, slots=True)
class RobotsVerdict:
    """Whether a URL may be fetched, and why not."""

    allowed: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class _SiteRules:
    expires: float
    rules: object | None  # a Protego parser, or None for "no rules"
    blanket: RobotsVerdict | None  # a verdict for every path (401/403/5xx)


class RobotsCheck:
    """The robots.txt check of one ``fetch_url`` tool, with its cache.

    Args:
        settings: The user agent, the deadline and the cache's size and lifetime.
    """

    def __init__(self, settings: FetchSettings) -> None:
        self._settings = settings
        self._sites: OrderedDict[str, _SiteRules] = OrderedDict()

    async def check(self, seam: ScopedFetch, url: str) -> RobotsVerdict:
        """May ``url`` be fetched by this agent?

        Raises:
            TimeoutError: robots.txt did not arrive within the fetch deadline.
        """
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        site = self._cached(origin)
        if site is None:
            site = await self._load(seam, origin)
            self._remember(origin, site)
        if site.blanket is not None:
            return site.blanket
        if site.rules is None:
            return RobotsVerdict(True)
        agent = self._settings.user_agent
        if site.rules.can_fetch(url, agent):  # type: ignore[attr-defined]
            return RobotsVerdict(True)
        return RobotsVerdict(
            False,
            f"{origin}/robots.txt disallows this URL for the user agent {agent!r}; this is an "
            "autonomous fetch, so it is refused. Ask the user to open the page, or to turn "
            "the robots.txt check off for fetches they asked for",
        )

    def _cached(self, origin: str) -> _SiteRules | None:
        site = self._sites.get(origin)
        if site is None or site.expires < time.monotonic():
            return None
        self._sites.move_to_end(origin)
        return site

    def _remember(self, origin: str, site: _SiteRules) -> None:
        self._sites[origin] = site
        self._sites.move_to_end(origin)
        while len(self._sites) > self._settings.robots_cache_size:
            self._sites.popitem(last=False)

    async def _load(self, seam: ScopedFetch, origin: str) -> _SiteRules:
        expires = time.monotonic() + self._settings.robots_ttl_s
        robots_url = f"{origin}/robots.txt"
        try:
            response = await seam.fetch(
                robots_url,
                headers={"user-agent": self._settings.user_agent, "accept": "text/plain"},
                timeout_s=self._settings.timeout_s,
            )
        except HostNotAllowedError:
            return _SiteRules(expires, None, None)
        except TimeoutError:
            raise
        except OSError as exc:
            reason = f"{robots_url} could not be fetched ({exc}); RFC 9309 reads that as " + (
                "'disallow everything' for autonomous fetches"
            )
            return _SiteRules(time.monotonic() + 60.0, None, RobotsVerdict(False, reason))
        status = response.status
        if status in (401, 403):
            reason = (
                f"{robots_url} answered {status}: autonomous fetching of this site is not "
                "allowed; ask the user to open the page"
            )
            return _SiteRules(expires, None, RobotsVerdict(False, reason))
        if 400 <= status < 500:
            return _SiteRules(expires, None, None)
        if status >= 500 or status < 200 or status >= 300:
            reason = (
                f"{robots_url} answered {status}; RFC 9309 reads an unreachable robots.txt "
                "as 'disallow everything' for now. Try again later"
            )
            return _SiteRules(time.monotonic() + 60.0, None, RobotsVerdict(False, reason))
        return _SiteRules(expires, _parse(response.body[:_MAX_ROBOTS_BYTES]), None)


def _parse(body: bytes) -> object:
    from protego import Protego

    return Protego.parse(body.decode("utf-8", errors="replace"))
