"""``fetch_url`` through the registry, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Iterator

import pytest
from fetch_site import (
    ARTICLE_PARAGRAPHS,
    HUGE_TEXT,
    JSON_DATA,
    NAV_WORDS,
    PDF_LINES,
    Site,
    fetcher,
    png_bytes,
    run_site,
)

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.toolbox.web import FetchSettings, web_tools

pytestmark = pytest.mark.anyio

LOCAL = NetworkPolicy(allow_private_urls=True)
CTX = ToolContext(session_id="fetch-tests")


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with run_site() as running:
        yield running


async def _registry(settings: FetchSettings, policy: NetworkPolicy = LOCAL) -> ToolRegistry:
    backends = CapabilityBackends(fetcher=fetcher(), network_policy=policy)
    registry = ToolRegistry(backends=backends)
    registry.register_all(web_tools(settings))
    return registry


@pytest.fixture
async def registry() -> AsyncIterator[ToolRegistry]:
    registry = await _registry(FetchSettings(user_agent="fetch-tests/1.0", timeout_s=1.0))
    async with registry:
        yield registry
        await registry.backends.fetcher.aclose()  # type: ignore[union-attr]


async def call(registry: ToolRegistry, **args: object) -> ToolResult:
    return (await registry.execute("fetch_url", dict(args), CTX)).result


def ok(result: ToolResult) -> Ok:
    assert isinstance(result, Ok), result
    return result


def failed(result: ToolResult) -> Err:
    assert isinstance(result, Err), result
    return result


async def test_html_becomes_markdown_of_the_main_content(
    registry: ToolRegistry, site: Site
) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/article.html")))
    assert result.value.startswith(f"URL: {site.url('site.test', '/article.html')} (HTML")
    assert "# Rebuilding Saint-Malo" in result.value
    for paragraph in ARTICLE_PARAGRAPHS:
        assert paragraph in result.value
    assert f"[the ramparts]({site.url('site.test', '/ramparts')})" in result.value
    assert NAV_WORDS not in result.value
    assert "tracker" not in result.value
    assert result.structured is not None
    assert result.structured["kind"] == "html"
    assert result.structured["title"] == "Rebuilding Saint-Malo"
    assert result.structured["next_start_index"] is None


async def test_raw_returns_the_html_source(registry: ToolRegistry, site: Site) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/article.html"), raw=True))
    assert "<script>var tracker" in result.value
    assert NAV_WORDS in result.value


async def test_the_configured_user_agent_is_sent(registry: ToolRegistry, site: Site) -> None:
    ok(await call(registry, url=site.url("site.test", "/notes.txt")))
    agents = {agent for path, host, agent in site.seen if path == "/notes.txt"}
    assert agents == {"fetch-tests/1.0"}


async def test_pdf_becomes_text(registry: ToolRegistry, site: Site) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/report.pdf")))
    for line in PDF_LINES:
        assert line in result.value
    assert result.structured is not None
    assert result.structured["kind"] == "pdf"
    assert result.structured["pages"] == 1
    assert result.structured["title"] == "Harbour report"


async def test_json_is_pretty_printed(registry: ToolRegistry, site: Site) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/data.json")))
    body = result.value.split("\n\n", 1)[1]
    assert body == json.dumps(JSON_DATA, indent=2)


async def test_json_without_a_content_type_is_recognised(
    registry: ToolRegistry, site: Site
) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/untyped")))
    assert result.structured is not None
    assert result.structured["kind"] == "json"
    assert '  "name": "toolwire"' in result.value


async def test_plain_text_is_returned_as_is(registry: ToolRegistry, site: Site) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/notes.txt")))
    assert result.value.endswith("\n\nfirst line\n  indented second line\n")


async def test_an_image_is_summarised_with_its_bytes_in_structured(
    registry: ToolRegistry, site: Site
) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/pixel.png")))
    assert "Image: image/png, 73 bytes, 3x2 px" in result.value
    assert result.structured is not None
    image = result.structured["image"]
    assert image["mime_type"] == "image/png"
    assert base64.b64decode(image["data"]) == png_bytes()
    assert (result.structured["width"], result.structured["height"]) == (3, 2)


async def test_an_image_over_the_cap_is_described_without_bytes(site: Site) -> None:
    async with await _registry(FetchSettings(max_image_bytes=10)) as registry:
        result = ok(await call(registry, url=site.url("site.test", "/pixel.png")))
    assert "Too large to attach" in result.value
    assert result.structured is not None
    assert "image" not in result.structured


async def test_a_charset_that_lies_is_overridden_by_the_page(
    registry: ToolRegistry, site: Site
) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/lying.html")))
    assert "l'élève a reçu ses résultats à Noël, très tôt" in result.value
    assert "\ufffd" not in result.value
    assert result.structured is not None
    assert result.structured["encoding"] == "cp1252"
    assert result.structured["encoding_source"] == "meta"


async def test_an_unknown_charset_label_falls_back_to_detection(
    registry: ToolRegistry, site: Site
) -> None:
    result = ok(await call(registry, url=site.url("site.test", "/bogus.txt")))
    assert result.value.endswith("naïve café ☕")


async def test_a_long_page_is_paged_and_the_pages_join_up(
    registry: ToolRegistry, site: Site
) -> None:
    url = site.url("site.test", "/huge.txt")
    pieces, start, calls = [], 0, 0
    while True:
        result = ok(await call(registry, url=url, max_chars=50_000, start_index=start))
        assert result.structured is not None
        pieces.append(result.value.split("\n\n", 1)[1].split("\n\n[", 1)[0])
        calls += 1
        following = result.structured["next_start_index"]
        if following is None:
            break
        remaining = result.structured["remaining_chars"]
        assert f"[{remaining:,} more characters" in result.value
        assert f"call fetch_url with start_index={following} to continue]" in result.value
        start = following
    assert calls == 5
    assert "".join(pieces) == HUGE_TEXT


async def test_start_index_past_the_end_is_invalid(registry: ToolRegistry, site: Site) -> None:
    result = failed(
        await call(registry, url=site.url("site.test", "/notes.txt"), start_index=10_000)
    )
    assert result.code == ErrorCode.INPUT_INVALID
    assert result.field == "start_index"


async def test_max_chars_is_bounded(registry: ToolRegistry, site: Site) -> None:
    result = failed(await call(registry, url=site.url("site.test", "/notes.txt"), max_chars=0))
    assert result.code == ErrorCode.INPUT_INVALID
    assert result.field == "max_chars"


async def test_the_byte_cap_cuts_the_download_and_says_so(site: Site) -> None:
    async with await _registry(FetchSettings(max_bytes=1000)) as registry:
        result = ok(await call(registry, url=site.url("site.test", "/huge.txt")))
    assert "[the response was cut at 1,000 bytes" in result.value
    assert result.structured is not None
    assert result.structured["total_chars"] == 1000


async def test_the_byte_cap_stops_reading_an_endless_stream(site: Site) -> None:
    """Regression (outside check, issue 23): the cap was applied after the network layer had
    read up to its own 10 MiB, so an endless stream cost 10 MB of download for 64 KiB."""
    async with await _registry(FetchSettings(max_bytes=65536)) as registry:
        result = ok(await call(registry, url=site.url("site.test", "/endless")))
    assert "[the response was cut at 65,536 bytes" in result.value
    assert site.server.streamed < 2 * 1024 * 1024  # the fetch hung up near the cap


async def test_robots_txt_disallow_refuses_an_autonomous_fetch(
    registry: ToolRegistry, site: Site
) -> None:
    result = failed(await call(registry, url=site.url("deny.test", "/private/article.html")))
    assert result.code == ErrorCode.NOT_AVAILABLE
    assert result.reason == "robots_txt"
    assert "robots.txt disallows this URL" in result.error
    assert ("/private/article.html", "deny.test") not in {(p, h) for p, h, _ in site.seen}


async def test_robots_txt_of_a_redirect_target_is_honoured(
    registry: ToolRegistry, site: Site
) -> None:
    target = site.url("deny.test", "/private/article.html")
    result = failed(await call(registry, url=site.url("site.test", f"/redirect?to={target}")))
    assert result.reason == "robots_txt"
    assert f"redirected to {target}" in result.error


async def test_robots_txt_allows_other_paths(registry: ToolRegistry, site: Site) -> None:
    result = ok(await call(registry, url=site.url("deny.test", "/article.html")))
    assert ARTICLE_PARAGRAPHS[0] in result.value


async def test_robots_txt_403_and_503_refuse_every_path(registry: ToolRegistry, site: Site) -> None:
    forbidden = failed(await call(registry, url=site.url("forbid.test", "/article.html")))
    assert "answered 403" in forbidden.error
    down = failed(await call(registry, url=site.url("down.test", "/article.html")))
    assert "answered 503" in down.error


async def test_robots_txt_is_read_once_per_site(registry: ToolRegistry, site: Site) -> None:
    before = sum(1 for p, h, _ in site.seen if p == "/robots.txt" and h == "deny.test")
    for _ in range(3):
        await call(registry, url=site.url("deny.test", "/article.html"))
    after = sum(1 for p, h, _ in site.seen if p == "/robots.txt" and h == "deny.test")
    assert after - before <= 1


async def test_robots_txt_can_be_ignored(site: Site) -> None:
    async with await _registry(FetchSettings(respect_robots=False)) as registry:
        result = ok(await call(registry, url=site.url("deny.test", "/private/article.html")))
    assert ARTICLE_PARAGRAPHS[1] in result.value


@pytest.mark.parametrize(
    "target",
    ["http://169.254.169.254/latest/meta-data/", "http://0.0.0.0:9/", "file:///etc/passwd"],
)
async def test_a_redirect_to_a_private_or_local_address_is_refused(
    registry: ToolRegistry, site: Site, target: str
) -> None:
    result = failed(await call(registry, url=site.url("site.test", f"/redirect?to={target}")))
    assert result.code == ErrorCode.NOT_AVAILABLE
    assert result.error.startswith("HOST_NOT_ALLOWED:")
    assert "redirect hop" in result.error


async def test_a_private_address_is_refused_by_the_default_policy(site: Site) -> None:
    async with await _registry(FetchSettings(), policy=NetworkPolicy()) as registry:
        result = failed(await call(registry, url=site.url("site.test", "/article.html")))
    assert result.code == ErrorCode.NOT_AVAILABLE
    assert "HOST_NOT_ALLOWED" in result.error


async def test_a_slow_server_times_out(registry: ToolRegistry, site: Site) -> None:
    result = failed(await call(registry, url=site.url("site.test", "/slow")))
    assert result.cause == "timeout"
    assert "timed out after 1 s" in result.error


async def test_an_http_error_is_an_error_with_the_page_excerpt(
    registry: ToolRegistry, site: Site
) -> None:
    result = failed(await call(registry, url=site.url("site.test", "/missing")))
    assert result.error.startswith(f"HTTP 404 from {site.url('site.test', '/missing')}")
    assert "Not here" in result.error


async def test_an_http_error_with_a_binary_body_has_no_excerpt(
    registry: ToolRegistry, site: Site
) -> None:
    result = failed(await call(registry, url=site.url("site.test", "/gone.bin")))
    assert result.error == f"HTTP 410 from {site.url('site.test', '/gone.bin')}"
    assert result.cause == "http_410"


async def test_surrounding_whitespace_in_the_url_is_ignored(
    registry: ToolRegistry, site: Site
) -> None:
    result = ok(await call(registry, url=f"  {site.url('site.test', '/notes.txt')}\n"))
    assert result.value.endswith("first line\n  indented second line\n")


async def test_a_binary_body_is_refused(registry: ToolRegistry, site: Site) -> None:
    result = failed(await call(registry, url=site.url("site.test", "/archive.zip")))
    assert result.cause == "unsupported_content"
    assert "application/zip" in result.error


async def test_a_non_http_url_is_invalid(registry: ToolRegistry) -> None:
    result = failed(await call(registry, url="ftp://site.test/x"))
    assert result.code == ErrorCode.INPUT_INVALID
    assert result.field == "url"


async def test_without_a_fetcher_the_tool_is_not_available() -> None:
    async with ToolRegistry(backends=CapabilityBackends()) as registry:
        registry.register_all(web_tools(FetchSettings()))
        result = failed(await call(registry, url="https://example.com/"))
    assert result.code == ErrorCode.NOT_AVAILABLE


async def test_the_tool_is_untrusted_read_only_and_in_the_web_toolset() -> None:
    (fetch_url,) = [t for t in web_tools(FetchSettings()) if t.name == "fetch_url"]
    assert fetch_url.toolset == "web"
    assert fetch_url.output_is_untrusted is True
