# ruff: noqa: E501  (the HTML and JSON bodies keep the providers' own long lines)
"""The search providers' HTTP APIs, as local fakes: request checks and answers from their docs.

Each function is one provider's endpoint. It checks what the real API checks (method, path,
the auth header or parameter, the required fields) and answers in the documented shape,
including its error bodies. Queries starting with ``trigger`` choose a failure:
``trigger 429`` (rate limited), ``trigger 500``, ``trigger quota``, ``trigger malformed``
(a body that is not the documented format) and ``trigger empty`` (no results).
"""

from __future__ import annotations

import html
from typing import Any

from fakes.http_fake import Recorded, Reply

KEYS = {
    "brave": "brave-test-key-1f3a",
    "tavily": "tvly-dev-test-key-77c0",
    "exa": "exa-test-key-5d21",
}
"""The keys each fake accepts (anything else is refused like the real API does)."""

DOCS: tuple[dict[str, str], ...] = tuple(
    {
        "title": f"Tide tables of Saint-Malo, part {i}",
        "url": f"https://tides.example.org/saint-malo/{i}",
        "snippet": f"Part {i}: the highest tides in Europe reach 13 metres at Saint-Malo.",
        "date": f"2024-03-{i + 1:02d}T08:00:00",
    }
    for i in range(12)
)
"""The index every fake searches (12 pages, so a count is visible)."""


def _trigger(query: str | None) -> str | None:
    if query and query.startswith("trigger "):
        return query.removeprefix("trigger ")
    return None


# Brave Search: GET /res/v1/web/search, X-Subscription-Token, q and count (1-20).


def _brave_error(status: int, code: str, detail: str) -> Reply:
    body = {
        "type": "ErrorResponse",
        "error": {
            "id": "5c7a1a50-0d6f",
            "status": status,
            "code": code,
            "detail": detail,
            "meta": {},
        },
        "time": 1714600000,
    }
    return Reply.json(status, body)


def brave(request: Recorded) -> Reply:
    """The Brave Search API's web search endpoint."""
    if request.method != "GET" or request.path != "/res/v1/web/search":
        return _brave_error(404, "NOT_FOUND", "Resource not found")
    if request.headers.get("x-subscription-token") != KEYS["brave"]:
        return _brave_error(
            401, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid."
        )
    query = request.param("q")
    if not query:
        return _brave_error(422, "VALIDATION", "Unable to validate request parameter(s)")
    count = int(request.param("count") or 20)
    trigger = _trigger(query)
    if trigger == "429":
        reply = _brave_error(429, "RATE_LIMITED", "Request rate limit exceeded for plan.")
        reply.headers.update(
            {"X-RateLimit-Limit": "1, 15000", "X-RateLimit-Reset": "1, 1419704", "Retry-After": "1"}
        )
        return reply
    if trigger == "quota":
        return _brave_error(402, "QUOTA_LIMITED", "Monthly quota for the plan has been exceeded.")
    if trigger == "500":
        return _brave_error(500, "INTERNAL", "Internal server error")
    if trigger == "malformed":
        return Reply(200, b'{"type": "search", "web": {"results": [{"title": ')
    body: dict[str, Any] = {
        "type": "search",
        "query": {"original": query, "more_results_available": True, "country": "us"},
        "mixed": {
            "type": "mixed",
            "main": [{"type": "web", "index": 0, "all": True}],
            "top": [],
            "side": [],
        },
    }
    if trigger != "empty":  # Brave leaves "web" out when it has no web results
        body["web"] = {
            "type": "search",
            "family_friendly": True,
            "results": [_brave_result(doc) for doc in DOCS[:count]],
        }
    return Reply.json(200, body)


def _brave_result(doc: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "search_result",
        "subtype": "generic",
        "title": doc["title"].replace("Saint-Malo", "<strong>Saint-Malo</strong>"),
        "url": doc["url"],
        "description": doc["snippet"].replace("tides", "<strong>tides</strong>") + " &amp; more",
        "page_age": doc["date"],
        "age": "March 1, 2024",
        "language": "en",
        "family_friendly": True,
        "is_source_local": False,
        "meta_url": {
            "scheme": "https",
            "netloc": "tides.example.org",
            "hostname": "tides.example.org",
            "path": "› saint-malo",
        },
    }


# Tavily: POST /search, Authorization: Bearer tvly-..., JSON {query, max_results, ...}.


def tavily(request: Recorded) -> Reply:
    """Tavily's search endpoint."""
    if request.method != "POST" or request.path != "/search":
        return Reply.json(404, {"detail": "Not Found"})
    if request.headers.get("authorization") != f"Bearer {KEYS['tavily']}":
        return Reply.json(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
    try:
        body = request.json()
    except ValueError:
        return Reply.json(400, {"detail": {"error": "Invalid JSON body."}})
    query = body.get("query")
    if not isinstance(query, str) or not query:
        return Reply.json(400, {"detail": {"error": "Query is missing."}})
    count = body.get("max_results", 5)
    trigger = _trigger(query)
    if trigger == "429":
        return Reply.json(
            429,
            {
                "detail": {
                    "error": "Your request has been blocked due to excessive requests. Please reduce rate of requests."
                }
            },
        )
    if trigger == "quota":
        return Reply.json(
            432,
            {
                "detail": {
                    "error": "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com"
                }
            },
        )
    if trigger == "500":
        return Reply.json(500, {"detail": {"error": "Internal Server Error"}})
    if trigger == "malformed":
        return Reply.json(200, {"query": query, "results": {"not": "a list"}})
    docs = () if trigger == "empty" else DOCS[:count]
    results = [
        {
            "title": d["title"],
            "url": d["url"],
            "content": d["snippet"],
            "score": 0.9 - i / 100,
            "raw_content": None,
        }
        for i, d in enumerate(docs)
    ]
    return Reply.json(
        200,
        {
            "query": query,
            "follow_up_questions": None,
            "answer": None,
            "images": [],
            "results": results,
            "response_time": 0.84,
            "request_id": "123e4567-e89b",
        },
    )


# Exa: POST /search, x-api-key, JSON {query, numResults, type, contents}.


def exa(request: Recorded) -> Reply:
    """Exa's search endpoint."""
    if request.method != "POST" or request.path != "/search":
        return Reply.json(404, {"requestId": "r0", "error": "Not found", "tag": "NOT_FOUND"})
    if request.headers.get("x-api-key") != KEYS["exa"]:
        return Reply.json(
            401, {"requestId": "r1", "error": "Invalid API key", "tag": "INVALID_API_KEY"}
        )
    body = request.json()
    query = body.get("query")
    if not isinstance(query, str) or not query:
        return Reply.json(
            400, {"requestId": "r2", "error": "query: Required", "tag": "INVALID_REQUEST_BODY"}
        )
    count = body.get("numResults", 10)
    trigger = _trigger(query)
    if trigger == "429":
        return Reply.json(
            429,
            {
                "requestId": "r3",
                "error": "You've exceeded your rate limit",
                "tag": "RATE_LIMIT_EXCEEDED",
            },
            **{"Retry-After": "2"},
        )
    if trigger == "quota":
        return Reply.json(
            402, {"requestId": "r4", "error": "You've run out of credits", "tag": "NO_MORE_CREDITS"}
        )
    if trigger == "500":
        return Reply.json(
            503,
            {
                "requestId": "r5",
                "error": "Service temporarily unavailable",
                "tag": "INTERNAL_ERROR",
            },
        )
    if trigger == "malformed":
        return Reply(200, b"<html><body>upstream proxy error</body></html>", "text/html")
    docs = () if trigger == "empty" else DOCS[:count]
    results = [
        {
            "id": d["url"],
            "title": d["title"],
            "url": d["url"],
            "publishedDate": d["date"] + ".000Z",
            "author": "Harbour office",
            "score": 0.4,
            "highlights": [d["snippet"], "Spring tides peak two days after the new moon."],
            "highlightScores": [0.61, 0.42],
        }
        for d in docs
    ]
    cost = {
        "total": 0.007 + 0.001 * max(0, len(results) - 10),
        "breakDown": [{"search": 0.007, "contents": 0}],
    }
    return Reply.json(
        200,
        {
            "requestId": "c6a1b2",
            "resolvedSearchType": "neural",
            "searchType": "auto",
            "results": results,
            "costDollars": cost,
        },
    )


# SearXNG: GET /search?q=...&format=json (403 when json is not in search.formats).


def searxng(request: Recorded, *, json_enabled: bool = True) -> Reply:
    """A SearXNG instance's search endpoint."""
    if request.path not in ("/search", "/"):
        return Reply.html(404, "<h1>Not Found</h1>")
    query = request.param("q")
    if request.param("format") != "json":
        return Reply.html(200, f"<html><body>results for {html.escape(query or '')}</body></html>")
    if not json_enabled:
        return Reply.html(403, "<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>")
    trigger = _trigger(query)
    if trigger == "429":
        return Reply.html(429, "<h1>Too Many Requests</h1>")
    if trigger == "500":
        return Reply.html(500, "<h1>Internal Server Error</h1>")
    if trigger == "malformed":
        return Reply(200, b'{"query": "x", "results": [', "application/json")
    docs = () if trigger == "empty" else DOCS
    results = [
        {
            "url": d["url"],
            "title": d["title"],
            "content": d["snippet"].replace("&", "&amp;"),
            "engine": "brave",
            "parsed_url": ["https", "tides.example.org", f"/saint-malo/{i}", "", "", ""],
            "template": "default.html",
            "engines": ["brave", "duckduckgo"],
            "positions": [i + 1, i + 2],
            "publishedDate": d["date"] if i % 2 == 0 else None,
            "score": 2.0 - i / 10,
            "category": "general",
        }
        for i, d in enumerate(docs)
    ]
    unresponsive = (
        [["google", "timeout"], ["wikipedia", "HTTP error"]] if trigger == "empty" else []
    )
    return Reply.json(
        200,
        {
            "query": query,
            "number_of_results": 0,
            "results": results,
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": ["saint-malo tides"],
            "unresponsive_engines": unresponsive,
        },
    )


# DuckDuckGo's HTML endpoint: POST /html/ with the form q, b, l.


def duckduckgo(request: Recorded) -> Reply:
    """html.duckduckgo.com's result page."""
    if request.path != "/html/":
        return Reply.html(404, "<h1>404</h1>")
    form = request.form() if request.method == "POST" else request.query
    query = (form.get("q") or [""])[0]
    if not query:
        return Reply.html(200, _ddg_page("", ""))
    trigger = _trigger(query)
    if trigger == "429":
        return Reply.html(202, _DDG_ANOMALY)
    if trigger == "500":
        return Reply.html(500, "<html><body>Internal error</body></html>")
    if trigger == "malformed":
        return Reply(200, b"", "text/html")
    if trigger == "empty":
        return Reply.html(200, _ddg_page(query, '<div class="no-results">No results.</div>'))
    items = [_DDG_AD] + [_ddg_result(i, d) for i, d in enumerate(DOCS[:10])]
    return Reply.html(200, _ddg_page(query, "\n".join(items)))


def _ddg_result(index: int, doc: dict[str, str]) -> str:
    href = html.escape(doc["url"])
    if index == 1:  # some links come wrapped in DuckDuckGo's redirect
        target = doc["url"].replace(":", "%3A").replace("/", "%2F") + "%3Fpage%3D2%26lang%3Den"
        href = f"//duckduckgo.com/l/?uddg={target}&amp;rut=8f1c2e"
    return f"""<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="{href}">{html.escape(doc["title"])}</a>
    </h2>
    <div class="result__extras">
      <div class="result__extras__url">
        <span class="result__icon"><a rel="nofollow" href="{href}"><img class="result__icon__img" width="16" height="16" alt="" src="//external-content.duckduckgo.com/ip3/tides.example.org.ico" name="i15" /></a></span>
        <a class="result__url" href="{href}">tides.example.org/saint-malo/{index}</a>
      </div>
    </div>
    <a class="result__snippet" href="{href}">{html.escape(doc["snippet"]).replace("tides", "<b>tides</b>")}</a>
    <div class="clear"></div>
  </div>
</div>"""


_DDG_AD = """<div class="result results_links results_links_deep result--ad ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ferries.example&amp;ad_provider=bingv7aa">Cheap ferries to Saint-Malo</a></h2>
    <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=ferries.example&amp;ad_provider=bingv7aa">Book now.</a>
  </div>
</div>"""

_DDG_ANOMALY = """<!DOCTYPE html><html><body><form id="challenge-form" action="//duckduckgo.com/anomaly.js">
<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
</form></body></html>"""


def _ddg_page(query: str, results: str) -> str:
    return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head><meta http-equiv="content-type" content="text/html; charset=UTF-8" /><title>{html.escape(query)} at DuckDuckGo</title></head>
<body>
<div id="links_wrapper"><div class="serp__results"><div id="links" class="results">
{results}
</div></div></div>
</body>
</html>"""
