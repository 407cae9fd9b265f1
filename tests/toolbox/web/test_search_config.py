"""``[web_search]`` in ``toolwire.toml``: read by `load_config`, built by the wiring, with the
``TOOLWIRE_WEB_SEARCH_*`` variables winning like every ``TOOLWIRE_*`` variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.toolbox.web.search import WebSearchSettings
from toolwire.wiring import builtin_tools


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "toolwire.toml"
    path.write_text(f'[tools]\ntoolsets = ["web"]\n{text}')
    return path


def _web_search_host(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> str:
    config = load_config(_config(tmp_path, text), env=env or {})
    [search] = [t for t in builtin_tools(config) if t.name == "web_search"]
    assert search.capabilities.network is not None
    return search.capabilities.network.allowed_hosts[0]


def test_the_table_chooses_the_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLWIRE_WEB_SEARCH_PROVIDER", raising=False)
    monkeypatch.delenv("TOOLWIRE_WEB_SEARCH_URL", raising=False)
    text = '[web_search]\nprovider = "tavily"\nmax_results = 7\n'
    config = load_config(_config(tmp_path, text), env={})
    assert config.web_search == {"provider": "tavily", "max_results": 7}
    assert _web_search_host(tmp_path, text) == "api.tavily.com"
    [search] = [t for t in builtin_tools(config) if t.name == "web_search"]
    assert search.capabilities.secrets is not None
    assert search.capabilities.secrets.refs == ("providers/tavily/apiKey",)
    assert search.schema["properties"]["max_results"]["default"] == 7


def test_without_a_table_the_default_stays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLWIRE_WEB_SEARCH_PROVIDER", raising=False)
    assert load_config(_config(tmp_path, ""), env={}).web_search is None
    assert _web_search_host(tmp_path, "") == "html.duckduckgo.com"


def test_a_bad_table_is_refused_when_the_tools_are_built(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, '[web_search]\napi_key = "sk-live-1"\n'), env={})
    with pytest.raises(ConfigurationError) as caught:
        builtin_tools(config)
    assert "unknown key(s) ['api_key']" in str(caught.value)
    assert "sk-live-1" not in str(caught.value)


def test_web_search_must_be_a_table(tmp_path: Path) -> None:
    path = tmp_path / "toolwire.toml"
    path.write_text('web_search = "brave"\n')
    with pytest.raises(ConfigurationError, match="web_search: expected a table"):
        load_config(path, env={})


def test_the_variables_win_over_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    table = {"provider": "searxng", "url": "http://127.0.0.1:8888", "max_results": 3}
    env = {"TOOLWIRE_WEB_SEARCH_PROVIDER": "brave"}
    settings = WebSearchSettings.from_config(table, env)
    assert settings.provider == "brave"
    assert settings.url is None  # the table's url was SearXNG's
    assert settings.max_results == 3
    same = WebSearchSettings.from_config(table, {"TOOLWIRE_WEB_SEARCH_URL": "http://s.test"})
    assert (same.provider, same.url) == ("searxng", "http://s.test")
    monkeypatch.setenv("TOOLWIRE_WEB_SEARCH_PROVIDER", "exa")
    assert WebSearchSettings.from_config(None).provider == "exa"
