"""The ``[auth]`` table and the exposure rule: what is accepted, what is refused and how the
refusal points at the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth._exposure import check_exposure
from toolwire.mcp.server.auth.settings import OAuthSettings, is_loopback_host

OAUTH = """
[auth.oauth]
issuer = "https://auth.example.com"
jwks_url = "https://auth.example.com/jwks.json"
audience = "https://mcp.example.com/mcp"

[auth.oauth.scopes]
"tools:files" = ["file"]
"""


def config_of(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    (tmp_path / "toolwire.toml").write_text(text)
    return load_config(tmp_path / "toolwire.toml", env={})


def test_auth_is_off_by_default_and_read_from_the_file(tmp_path: Path) -> None:
    assert not config_of(tmp_path, "").auth.enabled
    config = config_of(tmp_path, "[auth]\ntokens = true\ntoken_cache_s = 2\n" + OAUTH)
    assert config.auth.tokens
    assert config.auth.token_cache_s == 2
    oauth = config.auth.oauth
    assert oauth is not None
    assert oauth.resource == "https://mcp.example.com/mcp"
    assert oauth.scopes == {"tools:files": ("file",)}
    assert oauth.algorithms == ("RS256", "ES256")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[auth]\ntokens = 1\n", "toolwire.toml:2: auth.tokens: expected true or false"),
        ("[auth]\ntoken = true\n", "auth.token: unknown key"),
        ("[auth]\ntoken_cache_s = 7200\n", "token_cache_s must be between 0 and 3600"),
        (
            OAUTH.replace('"RS256"', "").replace(
                "[auth.oauth]\n", '[auth.oauth]\nalgorithms = ["HS256"]\n'
            ),
            "HS256",
        ),
        (OAUTH.replace("[auth.oauth]\n", '[auth.oauth]\nalgorithms = ["none"]\n'), "'none'"),
        (
            OAUTH.replace(
                "https://auth.example.com/jwks.json", "http://auth.example.com/jwks.json"
            ),
            "https://",
        ),
        (OAUTH.replace('audience = "https://mcp.example.com/mcp"\n', ""), "missing audience"),
        (OAUTH.replace('"tools:files" = ["file"]\n', ""), "map at least one scope"),
        (OAUTH.replace("https://mcp.example.com/mcp", "api://toolwire"), "resource: set it"),
        (OAUTH + "\n[auth.oauth.extra]\n", "auth.oauth.extra: unknown key"),
    ],
)
def test_bad_auth_tables_are_refused_with_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        config_of(tmp_path, text)
    assert message in str(refused.value)


def test_http_jwks_is_allowed_on_loopback_only() -> None:
    local = OAuthSettings(
        issuer="i", jwks_url="http://127.0.0.1:9/j", audience="https://x/mcp", scopes={"s": ("a",)}
    )
    assert local.jwks_url.startswith("http://127.0.0.1")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True), ("127.8.9.1", True), ("localhost", True), ("::1", True),
        ("[::1]", True), ("0.0.0.0", False), ("::", False), ("", False), ("10.0.0.5", False),
        ("example.com", False), ("localhost.example.com", False),
    ],
)  # fmt: skip
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_exposure_rule() -> None:
    assert check_exposure("127.0.0.1", authenticated=False) is None
    assert check_exposure("0.0.0.0", authenticated=True) is None
    with pytest.raises(ConfigurationError, match="refusing to serve on every interface"):
        check_exposure("", authenticated=False)
    warning = check_exposure("0.0.0.0", authenticated=False, insecure_no_auth=True)
    assert warning is not None
    assert "WITHOUT AUTHENTICATION" in warning


def env_config(tmp_path: Path, text: str, env: dict[str, str]):  # type: ignore[no-untyped-def]
    (tmp_path / "toolwire.toml").write_text(text)
    return load_config(tmp_path / "toolwire.toml", env=env)


def test_auth_environment_variables_win_over_the_file(tmp_path: Path) -> None:
    config = env_config(
        tmp_path,
        "[auth]\ntokens = true\ntoken_cache_s = 2\n" + OAUTH,
        {
            "TOOLWIRE_AUTH_TOKENS": "off",
            "TOOLWIRE_AUTH_TOKEN_CACHE_S": "0",
            "TOOLWIRE_AUTH_OAUTH_ISSUER": "https://login.example.org/tenant",
            "TOOLWIRE_AUTH_OAUTH_JWKS_URL": "",  # empty: unset, the file's stays
            "TOOLWIRE_AUTH_OAUTH_AUDIENCE": "api://toolwire, https://mcp.example.org/mcp",
            "TOOLWIRE_AUTH_OAUTH_ALGORITHMS": "ES256,EdDSA",
            "TOOLWIRE_AUTH_OAUTH_LEEWAY_S": "10",
            "TOOLWIRE_AUTH_OAUTH_JWKS_CACHE_S": "60",
            "TOOLWIRE_AUTH_OAUTH_JWKS_REFETCH_S": "2.5",
            "TOOLWIRE_AUTH_OAUTH_SCOPES": '{"mcp:all": ["*"], "mcp:web": ["web"]}',
        },
    )
    auth = config.auth
    assert (auth.tokens, auth.token_cache_s) == (False, 0.0)
    oauth = auth.oauth
    assert oauth is not None
    assert oauth.issuer == "https://login.example.org/tenant"
    assert oauth.jwks_url == "https://auth.example.com/jwks.json"
    assert oauth.audiences == ("api://toolwire", "https://mcp.example.org/mcp")
    assert oauth.resource == "https://mcp.example.org/mcp"  # the first audience that is a URL
    assert oauth.algorithms == ("ES256", "EdDSA")
    assert (oauth.leeway_s, oauth.jwks_cache_s, oauth.jwks_refetch_s) == (10, 60, 2.5)
    assert oauth.scopes == {"mcp:all": ("*",), "mcp:web": ("web",)}


def test_auth_can_be_configured_from_the_environment_alone(tmp_path: Path) -> None:
    env = {
        "TOOLWIRE_AUTH_TOKENS": "true",
        "TOOLWIRE_AUTH_OAUTH_ISSUER": "https://auth.example.com",
        "TOOLWIRE_AUTH_OAUTH_AUDIENCE": "https://mcp.example.com/mcp",
        "TOOLWIRE_AUTH_OAUTH_SCOPES": '{"tools:files": ["file"]}',
    }
    auth = env_config(tmp_path, "", env).auth
    assert auth.tokens
    assert auth.oauth is not None
    assert auth.oauth.jwks_url == ""  # discovered from the issuer's metadata
    assert check_exposure("0.0.0.0", authenticated=auth.enabled) is None
    assert not env_config(tmp_path, "", {"TOOLWIRE_AUTH_TOKENS": "0"}).auth.enabled


@pytest.mark.parametrize(
    ("text", "env", "message"),
    [
        ("", {"TOOLWIRE_AUTH_TOKEN": "true"}, "$TOOLWIRE_AUTH_TOKEN: unknown variable"),
        ("", {"TOOLWIRE_AUTH_TOKENS": "maybe"}, "$TOOLWIRE_AUTH_TOKENS: expected true or false"),
        ("", {"TOOLWIRE_AUTH_TOKEN_CACHE_S": "soon"}, "$TOOLWIRE_AUTH_TOKEN_CACHE_S: expected a"),
        ("", {"TOOLWIRE_AUTH_OAUTH_LEEWAY_S": "-1"}, "$TOOLWIRE_AUTH_OAUTH_LEEWAY_S: expected a"),
        ("", {"TOOLWIRE_AUTH_OAUTH_SCOPES": "tools=file"}, "$TOOLWIRE_AUTH_OAUTH_SCOPES: expected"),
        ("", {"TOOLWIRE_AUTH_OAUTH_SCOPES": '{"s": "file"}'}, "$TOOLWIRE_AUTH_OAUTH_SCOPES: "),
        ("", {"TOOLWIRE_AUTH_OAUTH_ISSUER": "https://a.example"}, "missing audience"),
        (OAUTH, {"TOOLWIRE_AUTH_OAUTH_ALGORITHMS": "HS256"}, "HS256"),
        (OAUTH, {"TOOLWIRE_AUTH_OAUTH_JWKS_URL": "http://k.example.com/j"}, "https://"),
        ("[auth]\ntokens = 1\n", {"TOOLWIRE_AUTH_TOKEN_CACHE_S": "1"}, "toolwire.toml:2: auth."),
    ],
)
def test_bad_auth_variables_are_refused_naming_the_variable(
    tmp_path: Path, text: str, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigurationError) as refused:
        env_config(tmp_path, text, env)
    assert message in str(refused.value)


def test_audience_may_be_a_list_in_the_file(tmp_path: Path) -> None:
    text = OAUTH.replace(
        'audience = "https://mcp.example.com/mcp"',
        'audience = ["api://toolwire", "https://mcp.example.com/mcp"]',
    )
    oauth = config_of(tmp_path, text).auth.oauth
    assert oauth is not None
    assert oauth.audiences == ("api://toolwire", "https://mcp.example.com/mcp")
    assert oauth.resource == "https://mcp.example.com/mcp"
