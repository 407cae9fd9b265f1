"""``web_search`` pieces on their own: settings and the ``[web_search]`` table, the key
probe behind ``is_available``, status → stable code, and the text cleaning of hits."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.capabilities.seams import FetchResponse
from toolwire.errors import ConfigurationError
from toolwire.results import ErrorCode
from toolwire.toolbox import default_tools
from toolwire.toolbox.web.search import (
    PROVIDERS,
    WebSearchSettings,
    create_provider,
    key_configured,
    web_search_tool,
)
from toolwire.toolbox.web.search._failures import ProviderFailure, status_failure
from toolwire.toolbox.web.search._hits import MAX_SNIPPET_CHARS, make_hit, plain
from toolwire.toolbox.web.search._render import render_text


def response(status: int, body: bytes = b"", **headers: str) -> FetchResponse:
    return FetchResponse(status=status, headers=headers, body=body, url="https://api.test/")


# Settings and the [web_search] table.


def test_the_default_is_duckduckgo_without_a_key() -> None:
    settings = WebSearchSettings()
    assert settings.provider == "duckduckgo"
    assert settings.secret_ref is None
    assert create_provider(settings).endpoint == "https://html.duckduckgo.com/html/"


@pytest.mark.parametrize(
    ("name", "endpoint", "ref"),
    [
        ("brave", "https://api.search.brave.com/res/v1/web/search", "providers/brave/apiKey"),
        ("tavily", "https://api.tavily.com/search", "providers/tavily/apiKey"),
        ("exa", "https://api.exa.ai/search", "providers/exa/apiKey"),
    ],
)
def test_keyed_providers_have_their_public_endpoint_and_ref(
    name: str, endpoint: str, ref: str
) -> None:
    provider = create_provider(WebSearchSettings(provider=name))
    assert provider.endpoint == endpoint
    assert provider.key_ref == ref


def test_the_table_is_read_and_checked() -> None:
    settings = WebSearchSettings.from_table(
        {
            "provider": "searxng",
            "url": "http://127.0.0.1:8888/",
            "max_results": 8,
            "timeout_s": 5,
        }
    )
    assert settings.max_results == 8
    assert settings.timeout_s == 5.0
    assert create_provider(settings).endpoint == "http://127.0.0.1:8888/search"
    assert create_provider(settings).price_usd(8) is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"provider": "bing"}, "unknown; choose one of"),
        ({"provider": "searxng"}, "needs the instance's url"),
        ({"api_key": "sk-123"}, "unknown key(s) ['api_key']"),
        ({"max_results": 50}, "max_results must be 1-20"),
        ({"max_results": True}, "max_results: expected an integer"),
        ({"timeout_s": "10"}, "timeout_s: expected a number"),
        ({"url": "ftp://x"}, "url must be http(s)"),
        ({"price_per_query_usd": -1}, "must be >= 0"),
        ({"key_ref": "providers/x"}, "duckduckgo takes no API key"),
        ({"provider": "brave", "key_ref": "../etc"}, "key_ref"),
    ],
)
def test_a_bad_table_says_what_is_wrong(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=None) as caught:
        WebSearchSettings.from_table(table)
    assert message in str(caught.value)
    assert "sk-123" not in str(caught.value)


def test_the_environment_chooses_the_provider() -> None:
    settings = WebSearchSettings.from_env(
        {"TOOLWIRE_WEB_SEARCH_PROVIDER": "SearXNG", "TOOLWIRE_WEB_SEARCH_URL": "http://s.test"}
    )
    assert (settings.provider, settings.url) == ("searxng", "http://s.test")
    assert WebSearchSettings.from_env({}).provider == "duckduckgo"


def test_a_custom_key_ref_is_declared_instead_of_the_default() -> None:
    tool = web_search_tool(WebSearchSettings(provider="exa", key_ref="team/exa"))
    assert tool.capabilities.secrets is not None
    assert tool.capabilities.secrets.refs == ("team/exa",)


# The tool as listed.


def test_web_search_is_a_default_tool_in_the_web_toolset() -> None:
    tools = {t.name: t for t in default_tools()}
    search = tools["web_search"]
    assert search.toolset == "web"
    assert search.output_is_untrusted is True
    assert search.annotations is not None
    assert search.annotations.open_world is True


def test_the_tool_may_reach_its_provider_host_only() -> None:
    for name in ("brave", "tavily", "exa"):
        tool = web_search_tool(WebSearchSettings(provider=name))
        assert tool.capabilities.network is not None
        host = create_provider(WebSearchSettings(provider=name)).endpoint.split("/")[2]
        assert tool.capabilities.network.allowed_hosts == (host,)
    free = web_search_tool(WebSearchSettings(provider="duckduckgo"))
    assert free.capabilities.secrets is None


def test_is_available_follows_the_key() -> None:
    present: set[str] = set()
    tool = web_search_tool(WebSearchSettings(provider="brave"), key_configured=present.__contains__)
    assert tool.currently_available() is False
    present.add("providers/brave/apiKey")
    assert tool.currently_available() is True


def test_keyless_providers_are_available() -> None:
    for settings in (
        WebSearchSettings(provider="duckduckgo"),
        WebSearchSettings(provider="searxng", url="http://127.0.0.1:8888"),
    ):
        assert web_search_tool(settings, key_configured=lambda ref: False).currently_available()


def test_key_configured_reads_the_environment_variable(tmp_path: Path) -> None:
    ref = "providers/tavily/apiKey"
    assert not key_configured(ref, environ={}, vault_dir=str(tmp_path))
    assert not key_configured(ref, environ={"TAVILY_API_KEY": ""}, vault_dir=str(tmp_path))
    assert key_configured(ref, environ={"TAVILY_API_KEY": "tvly-x"}, vault_dir=str(tmp_path))
    assert not key_configured(ref, environ={"BRAVE_API_KEY": "b"}, vault_dir=None)


@pytest.mark.anyio
async def test_key_configured_sees_the_vault_file(tmp_path: Path) -> None:
    from toolwire.capabilities.kinds.secrets._resolvers import VaultSecretsResolver

    ref = "providers/exa/apiKey"
    assert not key_configured(ref, environ={}, vault_dir=str(tmp_path))
    await VaultSecretsResolver(tmp_path).set(ref, "exa-secret")
    assert (tmp_path / quote(ref, safe="")).is_file()
    assert key_configured(ref, environ={}, vault_dir=str(tmp_path))


def test_the_default_probe_reads_the_process_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # an empty vault
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    tool = web_search_tool(WebSearchSettings(provider="brave"))
    assert tool.currently_available() is False
    monkeypatch.setenv("BRAVE_API_KEY", "brave-key")
    assert tool.currently_available() is True


# Status → stable code.


@pytest.mark.parametrize(
    ("status", "code", "kind"),
    [
        (401, "provider_unauthorized", ErrorCode.NOT_AVAILABLE),
        (403, "provider_unauthorized", ErrorCode.NOT_AVAILABLE),
        (402, "quota_exceeded", ErrorCode.EXECUTION_FAILED),
        (432, "quota_exceeded", ErrorCode.EXECUTION_FAILED),
        (433, "quota_exceeded", ErrorCode.EXECUTION_FAILED),
        (429, "rate_limited", ErrorCode.EXECUTION_FAILED),
        (500, "provider_unavailable", ErrorCode.EXECUTION_FAILED),
        (503, "provider_unavailable", ErrorCode.EXECUTION_FAILED),
        (400, "provider_rejected", ErrorCode.EXECUTION_FAILED),
        (422, "provider_rejected", ErrorCode.EXECUTION_FAILED),
        (301, "provider_rejected", ErrorCode.EXECUTION_FAILED),
    ],
)
def test_each_status_has_its_stable_code(status: int, code: str, kind: ErrorCode) -> None:
    failure = status_failure("Brave", response(status, b'{"error": {"detail": "why"}}'))
    assert failure is not None
    assert failure.code == code
    err = failure.to_err()
    assert err.code is kind
    assert (err.reason if kind is ErrorCode.NOT_AVAILABLE else err.cause) == code
    assert err.error.endswith(": why")


@given(st.integers(min_value=200, max_value=299))
def test_a_2xx_is_no_failure(status: int) -> None:
    assert status_failure("Exa", response(status)) is None


@given(st.integers(min_value=300, max_value=599), st.binary(max_size=300))
def test_any_other_status_is_a_failure_that_never_shows_the_key(status: int, body: bytes) -> None:
    key = "tvly-very-secret-key"
    echoed = response(status, body + key.encode())
    failure = status_failure("Tavily", echoed)
    assert isinstance(failure, ProviderFailure)
    assert key not in failure.to_err(key).error
    assert len(failure.message) < 500


# Hits: plain text, http(s) URLs, short snippets.


@given(st.text(max_size=300))
def test_plain_leaves_no_tags_or_line_breaks(text: str) -> None:
    cleaned = plain(f"<b>{text}</b>")
    assert "\n" not in cleaned
    assert cleaned == cleaned.strip()
    assert "<b>" not in cleaned


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "//x.test/", "ftp://x.test/", "", None, "https://a b"]
)
def test_only_http_urls_make_hits(url: object) -> None:
    assert make_hit("t", url, "s") is None


@given(st.text(min_size=MAX_SNIPPET_CHARS + 1, max_size=3 * MAX_SNIPPET_CHARS))
def test_long_snippets_are_cut(snippet: str) -> None:
    hit = make_hit("t", "https://x.test/", snippet)
    assert hit is not None
    assert len(hit.snippet) <= MAX_SNIPPET_CHARS


def test_the_text_is_compact_and_numbered() -> None:
    first = make_hit("One", "https://one.test/", "x" * 1000, "2024-01-02")
    second = make_hit("Two", "https://two.test/", "", None)
    assert first is not None
    assert second is not None
    text = render_text("Brave", "q", (first, second), ())
    lines = text.splitlines()
    assert lines[0] == '2 results from Brave for "q":'
    assert lines[2:4] == ["1. One", "   https://one.test/"]
    assert lines[4].startswith("   2024-01-02 · xxx")
    assert len(lines[4]) < 300
    assert lines[6:] == ["2. Two", "   https://two.test/"]


def test_every_provider_name_builds() -> None:
    for name in PROVIDERS:
        url = "http://127.0.0.1:8888" if name == "searxng" else None
        assert create_provider(WebSearchSettings(provider=name, url=url)).name == name


@pytest.mark.parametrize(
    ("settings", "status", "code", "words"),
    [
        (WebSearchSettings(provider="duckduckgo"), 403, "rate_limited", "takes for bots"),
        (
            WebSearchSettings(provider="searxng", url="http://s.test"),
            403,
            "provider_rejected",
            "search.formats",
        ),
        (
            WebSearchSettings(provider="searxng", url="http://s.test"),
            401,
            "provider_unauthorized",
            "credentials",
        ),
        (WebSearchSettings(provider="brave"), 403, "provider_unauthorized", "refused the API key"),
    ],
)
def test_keyless_providers_read_401_and_403_their_own_way(
    settings: WebSearchSettings, status: int, code: str, words: str
) -> None:
    provider = create_provider(settings)
    failure = status_failure(provider.label, response(status), provider.status_meanings)
    assert failure is not None
    assert failure.code == code
    assert words in failure.message
    assert "API key" not in failure.message or settings.provider == "brave"
