"""``[serve] session_idle_timeout_s`` and ``max_sessions`` reach the HTTP server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_helpers import WAIT_S, Served, make_project, serve_http, stop
from typer.testing import CliRunner

from toolwire.cli.app import app

pytestmark = pytest.mark.anyio

PROTOCOL = "2025-06-18"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def capped_server(tmp_path: Path) -> Iterator[Served]:
    served = serve_http(make_project(tmp_path, "[serve]\nmax_sessions = 1\n"))
    yield served
    stop(served.process)


async def _open_session(http: httpx.AsyncClient, url: str) -> str:
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t"}},
    }
    answer = await http.post(url, json=hello, headers=HEADERS)
    assert answer.status_code == 200, answer.text
    return answer.headers["mcp-session-id"]


async def _status(http: httpx.AsyncClient, url: str, session_id: str) -> int:
    headers = {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": PROTOCOL}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    return (await http.post(url, json=ping, headers=headers)).status_code


async def test_max_sessions_from_the_config_file_caps_the_sessions(capped_server: Served) -> None:
    url = capped_server.url
    assert url is not None
    async with httpx.AsyncClient(timeout=WAIT_S) as http:
        first = await _open_session(http, url)
        second = await _open_session(http, url)
        assert await _status(http, url, first) == 404
        assert await _status(http, url, second) == 200


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        ("max_sessions = 0", "serve.max_sessions: must be >= 1, got 0"),
        ("session_idle_timeout_s = -1", "serve.session_idle_timeout_s: expected a positive"),
    ],
)
def test_a_bad_session_setting_names_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str, problem: str
) -> None:
    monkeypatch.chdir(make_project(tmp_path, f"[serve]\n{setting}\n"))
    monkeypatch.delenv("TOOLWIRE_CONFIG", raising=False)
    result = CliRunner().invoke(app, ["serve", "--stdio"])
    assert result.exit_code == 2
    assert problem in " ".join(result.stderr.split())
