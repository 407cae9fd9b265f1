"""Browser clients: `ServeOptions.cors_origins` on a real `serve_http`, with and without auth."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from http_serving import HEADERS, serving
from mcp_helpers import WAIT_S

from toolwire.config import load_config
from toolwire.errors import ConfigurationError
from toolwire.mcp import ServeOptions
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.server_auth import open_server_auth
from toolwire.mcp.server.auth.settings import AuthSettings
from toolwire.mcp.server.auth.tokens import TokenStore
from toolwire.stores import create_kv_backend

pytestmark = pytest.mark.anyio

APP = "https://app.example.com"
OTHER = "https://evil.example"
MODERN = "2026-07-28"
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/list",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}
CALL_HEADERS = {**HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/list"}
ASKED = "authorization, content-type, mcp-protocol-version, mcp-method, mcp-session-id"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _preflight(origin: str) -> dict[str, str]:
    return {
        "origin": origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": ASKED,
    }


@asynccontextmanager
async def _token_server(origins: tuple[str, ...]) -> AsyncIterator[tuple[str, str]]:
    """A token-authenticated server for ``origins``: its URL and a token opening everything."""
    async with create_kv_backend("memory://") as backend:
        auth = open_server_auth(AuthSettings(tokens=True, token_cache_s=0), backend)
        issued = await TokenStore(backend).create("page", Grant(everything=True))
        try:
            async with serving(ServeOptions(auth=auth, cors_origins=origins)) as server:
                yield server.url, issued.token
        finally:
            await auth.aclose()


async def test_a_listed_origin_s_preflight_is_answered_without_a_credential() -> None:
    async with _token_server((APP,)) as (url, _), httpx.AsyncClient(timeout=WAIT_S) as http:
        answer = await http.options(url, headers=_preflight(APP))
        assert answer.status_code == 200, answer.text
        assert answer.headers["access-control-allow-origin"] == APP
        allowed = answer.headers["access-control-allow-methods"].replace(" ", "").split(",")
        assert {"GET", "POST", "DELETE"} <= set(allowed)
        asked = {h.strip() for h in ASKED.split(",")}
        assert asked <= {
            h.strip() for h in answer.headers["access-control-allow-headers"].split(",")
        }
        assert int(answer.headers["access-control-max-age"]) > 0


async def test_a_listed_origin_reads_the_answer_and_its_session_header() -> None:
    async with _token_server((APP,)) as (url, token), httpx.AsyncClient(timeout=WAIT_S) as http:
        headers = {**CALL_HEADERS, "origin": APP, "authorization": f"Bearer {token}"}
        answer = await http.post(url, json=CALL, headers=headers)
        assert answer.status_code == 200, answer.text
        assert "hold" in answer.text
        assert answer.headers["access-control-allow-origin"] == APP
        exposed = answer.headers["access-control-expose-headers"].lower()
        assert "mcp-session-id" in exposed
        assert "www-authenticate" in exposed


async def test_the_credential_is_still_required_on_the_real_request() -> None:
    async with _token_server((APP,)) as (url, _), httpx.AsyncClient(timeout=WAIT_S) as http:
        answer = await http.post(url, json=CALL, headers={**CALL_HEADERS, "origin": APP})
        assert answer.status_code == 401
        assert answer.headers["access-control-allow-origin"] == APP  # the page reads why
        assert "www-authenticate" in answer.headers


async def test_another_origin_is_refused_and_never_marked_readable() -> None:
    async with _token_server((APP,)) as (url, token), httpx.AsyncClient(timeout=WAIT_S) as http:
        preflight = await http.options(url, headers=_preflight(OTHER))
        assert preflight.status_code == 400
        assert "access-control-allow-origin" not in preflight.headers
        headers = {**CALL_HEADERS, "origin": OTHER, "authorization": f"Bearer {token}"}
        answer = await http.post(url, json=CALL, headers=headers)
        assert answer.status_code == 403  # the loopback server's DNS-rebinding protection
        assert "access-control-allow-origin" not in answer.headers


async def test_a_loopback_server_trusts_a_listed_origin_without_auth() -> None:
    async with (
        serving(ServeOptions(cors_origins=(APP,))) as server,
        httpx.AsyncClient(timeout=WAIT_S) as http,
    ):
        answer = await http.post(server.url, json=CALL, headers={**CALL_HEADERS, "origin": APP})
        assert answer.status_code == 200, answer.text
        assert answer.headers["access-control-allow-origin"] == APP


async def test_without_cors_origins_no_page_may_call() -> None:
    async with serving(ServeOptions()) as server, httpx.AsyncClient(timeout=WAIT_S) as http:
        preflight = await http.options(server.url, headers=_preflight(APP))
        assert "access-control-allow-origin" not in preflight.headers
        answer = await http.post(server.url, json=CALL, headers={**CALL_HEADERS, "origin": APP})
        assert answer.status_code == 403
        assert "access-control-allow-origin" not in answer.headers


@pytest.mark.parametrize(
    ("origin", "named"),
    [
        ("*", "every web page"),
        ("https://app.example.com/", "'https://app.example.com'"),
        ("HTTPS://App.Example.com", "'https://app.example.com'"),
        ("https://app.example.com:443", "'https://app.example.com'"),
        ("app.example.com", "scheme://host"),
        ("ftp://app.example.com", "scheme://host"),
        ("https://app.example.com/path", "'https://app.example.com'"),
    ],
)
def test_a_malformed_origin_is_refused_saying_what_a_browser_sends(origin: str, named: str) -> None:
    with pytest.raises(ConfigurationError, match="cors_origins") as refused:
        ServeOptions(cors_origins=(origin,))
    assert named in str(refused.value)


def test_a_single_string_is_refused_with_the_list_to_write() -> None:
    with pytest.raises(ConfigurationError, match=r"\('https://app.example.com',\)"):
        ServeOptions(cors_origins=APP)  # type: ignore[arg-type]


def test_origins_with_ports_and_ipv6_hosts_are_accepted() -> None:
    origins = ("http://localhost:5173", "https://[::1]:8443", APP)
    assert ServeOptions(cors_origins=origins).cors_origins == origins


def test_the_config_file_sets_them_and_names_its_line_when_wrong(tmp_path: Path) -> None:
    good = tmp_path / "toolwire.toml"
    good.write_text(f'[serve]\ncors_origins = ["{APP}"]\n')
    assert load_config(good).cors_origins == (APP,)
    bad = tmp_path / "bad.toml"
    bad.write_text('[serve]\nport = 1\ncors_origins = ["*"]\n')
    with pytest.raises(ConfigurationError, match=r"bad\.toml:3: serve\.cors_origins: .*every web"):
        load_config(bad)
