"""``web_search`` against local servers speaking each provider's real HTTP API.

Every test goes through the whole pipeline (registry, capabilities, `SafeFetcher` under a
network policy, a real socket) to a fake that checks what the real API checks. The tests
assert the request the fake received (method, path, auth header, parameters or JSON body)
and the results parsed from the documented answer, then each failure's stable code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from fakes.harness import ENV, searcher
from fakes.http_fake import FakeApi, Recorded, serve
from fakes.providers import DOCS, KEYS, brave, duckduckgo, exa, searxng, tavily

from toolwire.capabilities.seams import NetworkPolicy
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox.web.search import WebSearchSettings

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Spec:
    """One provider: its fake, where the settings point, what its request must carry."""

    name: str
    host: str
    path: str
    check_request: Callable[[Recorded, str, int], None]
    cost: float | None

    def settings(self, fake: FakeApi, **options: object) -> WebSearchSettings:
        url = fake.url(self.host, "" if self.name == "searxng" else self.path)
        return WebSearchSettings(provider=self.name, url=url, **options)  # type: ignore[arg-type]


def _brave_request(seen: Recorded, query: str, count: int) -> None:
    assert seen.method == "GET"
    assert seen.path == "/res/v1/web/search"
    assert seen.headers["x-subscription-token"] == KEYS["brave"]
    assert seen.headers["accept"] == "application/json"
    assert seen.query == {"q": [query], "count": [str(count)]}


def _tavily_request(seen: Recorded, query: str, count: int) -> None:
    assert (seen.method, seen.path) == ("POST", "/search")
    assert seen.headers["authorization"] == f"Bearer {KEYS['tavily']}"
    assert seen.headers["content-type"] == "application/json"
    assert seen.json() == {"query": query, "max_results": count, "search_depth": "basic"}
    assert KEYS["tavily"] not in seen.body.decode()  # the key travels in the header only


def _exa_request(seen: Recorded, query: str, count: int) -> None:
    assert (seen.method, seen.path) == ("POST", "/search")
    assert seen.headers["x-api-key"] == KEYS["exa"]
    body = seen.json()
    assert body["query"] == query
    assert body["numResults"] == count
    assert body["type"] == "auto"
    assert "highlights" in body["contents"]


def _searxng_request(seen: Recorded, query: str, count: int) -> None:
    assert (seen.method, seen.path) == ("GET", "/search")
    assert seen.query == {"q": [query], "format": ["json"]}
    assert not any("key" in name or name == "authorization" for name in seen.headers)


def _ddg_request(seen: Recorded, query: str, count: int) -> None:
    assert (seen.method, seen.path) == ("POST", "/html/")
    assert seen.headers["content-type"] == "application/x-www-form-urlencoded"
    assert seen.form() == {"q": [query], "b": [""], "l": ["us-en"]}


SPECS = {
    "brave": Spec("brave", "brave.test", "/res/v1/web/search", _brave_request, 0.005),
    "tavily": Spec("tavily", "tavily.test", "/search", _tavily_request, 0.008),
    "exa": Spec("exa", "exa.test", "/search", _exa_request, 0.007),
    "searxng": Spec("searxng", "searx.test", "/search", _searxng_request, None),
    "duckduckgo": Spec("duckduckgo", "ddg.test", "/html/", _ddg_request, None),
}
APIS = {
    "brave": brave,
    "tavily": tavily,
    "exa": exa,
    "searxng": searxng,
    "duckduckgo": duckduckgo,
}
KEYED = ("brave", "tavily", "exa")


@pytest.fixture(scope="module")
def fakes() -> Iterator[dict[str, FakeApi]]:
    """One running fake per provider."""
    with ExitStack() as stack:
        yield {name: stack.enter_context(serve(api)) for name, api in APIS.items()}


def ok(result: ToolResult) -> Ok:
    assert isinstance(result, Ok), result
    return result


def err(result: ToolResult) -> Err:
    assert isinstance(result, Err), result
    return result


@pytest.mark.parametrize("name", list(SPECS))
async def test_a_search_sends_the_documented_request_and_reads_the_answer(
    fakes: dict[str, FakeApi], name: str
) -> None:
    spec, fake = SPECS[name], fakes[name]
    async with searcher(spec.settings(fake)) as search:
        result = ok(await search(query="saint-malo tides", max_results=3))
    spec.check_request(fake.last, "saint-malo tides", 3)
    data = result.structured
    assert data is not None
    assert data["provider"] == name
    assert data["count"] == 3
    first = data["results"][0]
    assert first["url"] == DOCS[0]["url"]
    assert first["title"] == DOCS[0]["title"]  # markup (Brave's <strong>) removed
    assert "<" not in first["snippet"]
    assert first["snippet"].startswith("Part 0: the highest tides in Europe")
    assert result.cost_usd == spec.cost
    assert data["cost_usd"] == spec.cost
    assert result.value.startswith(f'3 results from {_label(name)} for "saint-malo tides":')
    assert f"1. {DOCS[0]['title']}\n   {DOCS[0]['url']}" in result.value


def _label(name: str) -> str:
    return {
        "brave": "Brave",
        "tavily": "Tavily",
        "exa": "Exa",
        "searxng": "SearXNG",
        "duckduckgo": "DuckDuckGo",
    }[name]


@pytest.mark.parametrize("name", ["brave", "tavily", "exa", "searxng"])
async def test_dates_come_through_where_the_provider_gives_them(
    fakes: dict[str, FakeApi], name: str
) -> None:
    spec, fake = SPECS[name], fakes[name]
    async with searcher(spec.settings(fake)) as search:
        result = ok(await search(query="saint-malo tides", max_results=2))
    assert result.structured is not None
    dates = [hit["date"] for hit in result.structured["results"]]
    if name == "tavily":  # published_date only comes with the news topic
        assert dates == [None, None]
    elif name == "searxng":  # the fake dates every other result
        assert dates == [DOCS[0]["date"], None]
    else:
        assert str(dates[0]).startswith("2024-03-01")
        assert "2024-03-01" in result.value


async def test_brave_entities_and_strong_tags_become_plain_text(fakes: dict[str, FakeApi]) -> None:
    async with searcher(SPECS["brave"].settings(fakes["brave"])) as search:
        result = ok(await search(query="saint-malo tides", max_results=1))
    assert result.structured is not None
    assert result.structured["results"][0]["snippet"].endswith("at Saint-Malo. & more")


async def test_exa_reports_its_own_cost_and_highlights(fakes: dict[str, FakeApi]) -> None:
    async with searcher(SPECS["exa"].settings(fakes["exa"])) as search:
        result = ok(await search(query="saint-malo tides", max_results=12))
    assert result.structured is not None
    assert result.structured["count"] == 12
    assert result.cost_usd == pytest.approx(0.009)  # costDollars.total, 2 results beyond 10
    snippet = result.structured["results"][0]["snippet"]
    assert " … Spring tides peak two days after the new moon." in snippet


async def test_a_configured_price_replaces_the_documented_one(fakes: dict[str, FakeApi]) -> None:
    spec = SPECS["brave"]
    async with searcher(spec.settings(fakes["brave"], price_per_query_usd=0.003)) as search:
        result = ok(await search(query="saint-malo tides"))
    assert result.cost_usd == 0.003
    spec.check_request(fakes["brave"].last, "saint-malo tides", 5)  # the settings' default


@pytest.mark.parametrize("name", ["searxng", "duckduckgo"])
async def test_providers_without_a_count_are_cut_to_max_results(
    fakes: dict[str, FakeApi], name: str
) -> None:
    spec, fake = SPECS[name], fakes[name]
    async with searcher(spec.settings(fake)) as search:
        result = ok(await search(query="saint-malo tides", max_results=4))
    assert result.structured is not None
    assert [hit["url"] for hit in result.structured["results"]] == [
        _ddg_url(i) if name == "duckduckgo" else DOCS[i]["url"] for i in range(4)
    ]


def _ddg_url(index: int) -> str:
    url = DOCS[index]["url"]
    return f"{url}?page=2&lang=en" if index == 1 else url


async def test_duckduckgo_drops_ads_and_unwraps_redirect_links(fakes: dict[str, FakeApi]) -> None:
    async with searcher(SPECS["duckduckgo"].settings(fakes["duckduckgo"])) as search:
        result = ok(await search(query="saint-malo tides", max_results=20))
    assert result.structured is not None
    urls = [hit["url"] for hit in result.structured["results"]]
    assert len(urls) == 10
    assert not any("duckduckgo.com" in url for url in urls)
    assert urls[1] == "https://tides.example.org/saint-malo/1?page=2&lang=en"
    assert result.structured["results"][0]["date"] is None


@pytest.mark.parametrize("name", list(SPECS))
async def test_no_results_is_an_answer_not_an_error(fakes: dict[str, FakeApi], name: str) -> None:
    async with searcher(SPECS[name].settings(fakes[name])) as search:
        result = ok(await search(query="trigger empty"))
    assert result.structured is not None
    assert result.structured["results"] == []
    assert result.value.startswith(f'No results from {_label(name)} for "trigger empty".')


async def test_searxng_says_which_engines_did_not_answer(fakes: dict[str, FakeApi]) -> None:
    async with searcher(SPECS["searxng"].settings(fakes["searxng"])) as search:
        result = ok(await search(query="trigger empty"))
    assert "engines that did not answer: google (timeout), wikipedia (HTTP error)" in result.value


@pytest.mark.parametrize("name", list(SPECS))
async def test_rate_limiting_is_rate_limited(fakes: dict[str, FakeApi], name: str) -> None:
    async with searcher(SPECS[name].settings(fakes[name])) as search:
        failure = err(await search(query="trigger 429"))
    assert failure.code is ErrorCode.EXECUTION_FAILED
    assert failure.cause == "rate_limited"
    assert _label(name) in failure.error


async def test_the_retry_after_header_is_passed_on(fakes: dict[str, FakeApi]) -> None:
    async with searcher(SPECS["exa"].settings(fakes["exa"])) as search:
        failure = err(await search(query="trigger 429"))
    assert failure.error == (
        "Exa is rate limiting these requests (HTTP 429): You've exceeded your rate limit; "
        "retry after 2 s"
    )


@pytest.mark.parametrize("name", list(SPECS))
async def test_a_server_error_is_provider_unavailable(fakes: dict[str, FakeApi], name: str) -> None:
    async with searcher(SPECS[name].settings(fakes[name])) as search:
        failure = err(await search(query="trigger 500"))
    assert failure.code is ErrorCode.EXECUTION_FAILED
    assert failure.cause == "provider_unavailable"


@pytest.mark.parametrize("name", list(SPECS))
async def test_a_malformed_answer_is_malformed_response(
    fakes: dict[str, FakeApi], name: str
) -> None:
    async with searcher(SPECS[name].settings(fakes[name])) as search:
        failure = err(await search(query="trigger malformed"))
    assert failure.code is ErrorCode.EXECUTION_FAILED
    assert failure.cause == "malformed_response"
    assert _label(name) in failure.error


@pytest.mark.parametrize("name", KEYED)
async def test_a_used_up_plan_is_quota_exceeded(fakes: dict[str, FakeApi], name: str) -> None:
    async with searcher(SPECS[name].settings(fakes[name])) as search:
        failure = err(await search(query="trigger quota"))
    assert failure.cause == "quota_exceeded"


@pytest.mark.parametrize("name", KEYED)
async def test_a_refused_key_is_not_available_and_never_echoed(
    fakes: dict[str, FakeApi], name: str
) -> None:
    wrong = {variable: f"wrong-{value}" for variable, value in ENV.items()}
    async with searcher(SPECS[name].settings(fakes[name]), env=wrong) as search:
        failure = err(await search(query="saint-malo tides"))
    assert failure.code is ErrorCode.NOT_AVAILABLE
    assert failure.reason == "provider_unauthorized"
    assert "HTTP 401" in failure.error
    assert not any(value in failure.error for value in wrong.values())


@pytest.mark.parametrize("name", KEYED)
async def test_no_key_is_not_available_and_nothing_is_sent(
    fakes: dict[str, FakeApi], name: str
) -> None:
    fake = fakes[name]
    before = len(fake.requests)
    async with searcher(SPECS[name].settings(fake), env={}) as search:
        failure = err(await search(query="saint-malo tides"))
    assert failure.code is ErrorCode.NOT_AVAILABLE
    assert failure.reason == "missing_api_key"
    assert len(fake.requests) == before


async def test_searxng_without_the_json_format_says_how_to_enable_it() -> None:
    with serve(lambda request: searxng(request, json_enabled=False)) as fake:
        async with searcher(SPECS["searxng"].settings(fake)) as search:
            failure = err(await search(query="saint-malo tides"))
    assert failure.cause == "provider_rejected"  # a 403 here is not a refused key
    assert "search.formats" in failure.error


@pytest.mark.parametrize("name", ["brave", "searxng"])
async def test_the_network_policy_applies_to_the_provider(
    fakes: dict[str, FakeApi], name: str
) -> None:
    spec, fake = SPECS[name], fakes[name]
    before = len(fake.requests)
    denied = NetworkPolicy(deny=(spec.host,), allow_private_urls=True)
    async with searcher(spec.settings(fake), policy=denied) as search:
        failure = err(await search(query="saint-malo tides"))
    assert failure.code is ErrorCode.NOT_AVAILABLE
    assert failure.error.startswith("HOST_NOT_ALLOWED:")
    assert len(fake.requests) == before


@pytest.mark.parametrize("name", ["brave", "searxng"])
async def test_a_port_scoped_allow_entry_lets_the_provider_through(
    fakes: dict[str, FakeApi], name: str
) -> None:
    """Regression (outside check, issue 23): ``allow = ["host:port"]`` answered
    HOST_NOT_ALLOWED and sent nothing: the tool declares its provider's host without a port."""
    spec, fake = SPECS[name], fakes[name]
    before = len(fake.requests)
    allowed = NetworkPolicy(allow=(f"{spec.host}:{fake.port}",), allow_private_urls=True)
    async with searcher(spec.settings(fake), policy=allowed) as search:
        ok(await search(query="saint-malo tides"))
    assert len(fake.requests) == before + 1
    other_port = NetworkPolicy(allow=(f"{spec.host}:{fake.port + 1}",), allow_private_urls=True)
    async with searcher(spec.settings(fake), policy=other_port) as search:
        failure = err(await search(query="saint-malo tides"))
    assert failure.error.startswith("HOST_NOT_ALLOWED:")
    assert len(fake.requests) == before + 1


async def test_a_private_address_needs_allow_private_urls(fakes: dict[str, FakeApi]) -> None:
    fake = fakes["searxng"]
    before = len(fake.requests)
    async with searcher(SPECS["searxng"].settings(fake), policy=NetworkPolicy()) as search:
        failure = err(await search(query="saint-malo tides"))
    assert "private-address" in failure.error or "private/reserved" in failure.error
    assert len(fake.requests) == before


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"query": "   "}, "query"),
        ({"query": "x" * 2001}, "query"),
        ({"query": "tides", "max_results": 0}, "max_results"),
        ({"query": "tides", "max_results": 21}, "max_results"),
    ],
)
async def test_bad_arguments_are_input_invalid_before_any_request(
    fakes: dict[str, FakeApi], args: dict[str, object], field: str
) -> None:
    fake = fakes["brave"]
    before = len(fake.requests)
    async with searcher(SPECS["brave"].settings(fake)) as search:
        failure = err(await search(**args))
    assert failure.code is ErrorCode.INPUT_INVALID
    assert failure.field == field
    assert len(fake.requests) == before
