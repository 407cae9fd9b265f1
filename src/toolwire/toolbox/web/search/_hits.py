"""Turning what a provider sends into `SearchHit` values: plain text, checked URLs.

Providers put markup in titles and snippets (Brave wraps matches in ``<strong>``, SearXNG
and DuckDuckGo send entities); `plain` removes tags, decodes entities and collapses
whitespace. `make_hit` keeps only ``http(s)`` URLs and cuts a snippet at `MAX_SNIPPET_CHARS`;
`listed_hits` reads the ``results`` list most providers answer.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any, TypeAlias

from toolwire.toolbox.web.search._failures import MALFORMED, ProviderFailure
from toolwire.toolbox.web.search._protocol import SearchHit

__all__ = ["MAX_SNIPPET_CHARS", "MAX_TITLE_CHARS", "RawHit", "listed_hits", "make_hit", "plain"]

RawHit: TypeAlias = tuple[Any, Any, Any, Any]
"""A provider's raw ``(title, url, snippet, date)`` for `make_hit`."""

MAX_SNIPPET_CHARS = 600
"""A snippet longer than this is cut (Tavily's and Exa's can run to pages)."""
MAX_TITLE_CHARS = 300
_TAG = re.compile(r"<[^>]*>")


def plain(value: Any) -> str:
    """``value`` as one line of plain text (``""`` for anything not a string)."""
    if not isinstance(value, str):
        return ""
    return " ".join(html.unescape(_TAG.sub("", value)).split())


def make_hit(title: Any, url: Any, snippet: Any, date: Any = None) -> SearchHit | None:
    """A hit from raw provider fields; ``None`` when the URL is not ``http(s)``."""
    if not isinstance(url, str):
        return None
    link = url.strip()
    if not link.lower().startswith(("http://", "https://")) or any(c.isspace() for c in link):
        return None
    text = plain(snippet)
    if len(text) > MAX_SNIPPET_CHARS:
        text = text[: MAX_SNIPPET_CHARS - 1].rstrip() + "…"
    name = plain(title)[:MAX_TITLE_CHARS] or link
    when = plain(date) or None
    return SearchHit(title=name, url=link, snippet=text, date=when)


def listed_hits(
    data: Any, provider: str, fields: Callable[[dict[str, Any]], RawHit]
) -> tuple[SearchHit, ...]:
    """The hits of the ``results`` list of ``data`` (a provider's JSON answer): one per object
    whose URL is ``http(s)``, from its raw fields, ``fields(item)``.

    Raises:
        ProviderFailure: ``malformed_response``: ``data`` has no ``results`` list.
    """
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise ProviderFailure(MALFORMED, f"{provider}'s answer has no results list")
    hits: list[SearchHit] = []
    for item in results:
        if not isinstance(item, dict):
            continue
        hit = make_hit(*fields(item))
        if hit is not None:
            hits.append(hit)
    return tuple(hits)
