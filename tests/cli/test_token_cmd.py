"""``toolwire token create|list|revoke`` on a SQLite store, and ``toolwire serve --http`` as a
real process: refused beyond loopback without authentication, and accepting exactly the live
tokens the CLI made."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_helpers import WAIT_S, Served, free_port, serve_http, stop
from typer.testing import CliRunner

from toolwire.cli.app import app
from toolwire.cli.token_cmd import parse_expiry

runner = CliRunner()
CONFIG = '[store]\nurl = "sqlite:///state.db"\n\n[auth]\ntokens = true\ntoken_cache_s = 0\n'
HELLO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "token-test", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "toolwire.toml").write_text(CONFIG)
    return tmp_path


def token(project: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["-c", str(project / "toolwire.toml"), "token", *args])
    return result.exit_code, result.stdout, result.stderr


def test_create_prints_the_token_once_list_hides_it_revoke_removes_it(project: Path) -> None:
    code, out, err = token(
        project, "create", "--name", "ci", "--toolsets", "file,web", "--tools", "echo"
    )
    assert code == 0, err
    secret = out.strip()
    assert secret.startswith("tw_")
    assert "\n" not in secret
    assert "shown only now" in err
    assert "toolsets file, web; tools echo" in err
    code, out, _ = token(project, "list")
    assert code == 0
    assert "ci" in out
    assert secret not in out
    assert secret.split("_", 2)[2] not in out
    code, out, _ = token(project, "list", "--json")
    listed = json.loads(out)
    assert [(t["name"], t["toolsets"], t["tools"], t["all"]) for t in listed] == [
        ("ci", ["file", "web"], ["echo"], False)
    ]
    assert secret not in (project / "state.db").read_bytes().decode("latin-1")
    assert token(project, "revoke", "ci")[0] == 0
    code, _, err = token(project, "revoke", "ci")
    assert code == 2
    assert "no token with id or name 'ci'" in err
    assert json.loads(token(project, "list", "--json")[1]) == []


def test_create_refuses_what_cannot_work(project: Path, tmp_path: Path) -> None:
    code, _, err = token(project, "create", "--name", "empty")
    assert code == 2
    assert "--toolsets, --tools, or --all" in err
    code, _, err = token(project, "create", "--name", "x", "--all", "--expires", "soon")
    assert code == 2
    assert "--expires takes" in err
    assert token(project, "create", "--name", "dup", "--all")[0] == 0
    code, _, err = token(project, "create", "--name", "dup", "--all")
    assert code == 2
    assert "exists" in err
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "toolwire.toml").write_text('[store]\nurl = "memory://"\n')
    code, _, err = token(memory, "create", "--name", "m", "--all")
    assert code == 2
    assert "memory://" in err


def test_expiry_forms() -> None:
    assert parse_expiry("90m", 1000.0) == 1000.0 + 5400
    assert parse_expiry("2w", 0.0) == 14 * 86400
    assert parse_expiry("2030-01-01", 0.0) == 1893456000.0
    assert parse_expiry("2030-01-01T01:00:00+01:00", 0.0) == 1893456000.0


def test_serve_refuses_a_public_address_without_auth(tmp_path: Path) -> None:
    (tmp_path / "toolwire.toml").write_text('[store]\nurl = "memory://"\n')
    result = subprocess.run(
        [sys.executable, "-m", "toolwire", "serve", "--http", f"0.0.0.0:{free_port()}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert "refusing to serve on 0.0.0.0 without authentication" in result.stderr


@pytest.fixture
def served(project: Path) -> Iterator[Served]:
    server = serve_http(project)
    yield server
    stop(server.process)


def test_serve_accepts_the_live_tokens_the_cli_made(project: Path, served: Served) -> None:
    assert "auth     bearer tokens" in served.output()
    code, out, err = token(project, "create", "--name", "agent", "--toolsets", "file")
    assert code == 0, err
    secret = out.strip()
    assert served.url is not None
    with httpx.Client(timeout=WAIT_S) as http:
        assert http.post(served.url, json=HELLO, headers=HEADERS).status_code == 401
        authed = {**HEADERS, "authorization": f"Bearer {secret}"}
        opened = http.post(served.url, json=HELLO, headers=authed)
        assert opened.status_code == 200
        session = {
            **authed,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-06-18",
        }
        http.post(
            served.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=session,
        )
        listing = http.post(
            served.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=session
        )
        names = [tool["name"] for tool in _json_rpc(listing)["result"]["tools"]]
        assert names
        assert "read_file" in names
        assert "terminal" not in names
        assert token(project, "revoke", "agent")[0] == 0
        assert http.post(served.url, json=HELLO, headers=authed).status_code == 401


def test_insecure_no_auth_serves_a_public_address_with_a_loud_warning(tmp_path: Path) -> None:
    (tmp_path / "toolwire.toml").write_text('[store]\nurl = "memory://"\n')
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "toolwire",
                "serve",
                "--http",
                f"0.0.0.0:{free_port()}",
                "--insecure-no-auth",
            ],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "streamable HTTP at" not in log.read_text():
            assert process.poll() is None, log.read_text()
            time.sleep(0.05)
        text = log.read_text()
        assert "WITHOUT AUTHENTICATION" in text
        assert "auth     none" in text
    finally:
        stop(process)


def _json_rpc(answer: httpx.Response) -> dict[str, object]:
    if answer.headers["content-type"].startswith("application/json"):
        return answer.json()  # type: ignore[no-any-return]
    data = [line[5:].strip() for line in answer.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])  # type: ignore[no-any-return]
