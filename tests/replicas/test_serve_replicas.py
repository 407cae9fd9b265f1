"""Two real ``toolwire serve`` processes with ``[replicas]`` on one SQLite file: a session
opened on one is answered by the other, a background process is owned by its replica, and a
replica killed with SIGKILL is reported gone by the other."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from subprocesses import stop_process

START_TIMEOUT_S = 60.0
WAIT_S = 20.0
PROTOCOL = "2025-06-18"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _replica(home: Path, name: str, config: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``toolwire serve`` as replica ``name`` (its own working directory ``home``)."""
    home.mkdir()
    port = _free_port()
    log = home / "serve.log"
    env = {**os.environ, "TOOLWIRE_REPLICA_ID": name, "TOOLWIRE_REPLICA_HEARTBEAT_S": "0.5"}
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "toolwire",
                "--config",
                str(config),
                "serve",
                "--http",
                f"127.0.0.1:{port}",
            ],
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert process.poll() is None, log.read_text(errors="replace")
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                time.sleep(0.1)
        yield process, f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_process(process, WAIT_S)


def _post(url: str, message: dict[str, Any], session: str | None = None) -> httpx.Response:
    headers = dict(HEADERS)
    if session is not None:
        headers |= {"mcp-session-id": session, "mcp-protocol-version": PROTOCOL}
    return httpx.post(url, json=message, headers=headers, timeout=WAIT_S)


def _result(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("application/json"):
        messages = [answer.json()]
    else:
        messages = [
            json.loads(line[5:])
            for line in answer.text.splitlines()
            if line.startswith("data:") and line[5:].strip()
        ]
    results = [m["result"] for m in messages if "result" in m]
    assert len(results) == 1, messages
    result: dict[str, Any] = results[0]
    return result


def _call(url: str, session: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    message = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return _result(_post(url, message, session))


def test_two_serve_processes_answer_one_session_and_own_their_processes(tmp_path: Path) -> None:
    config = tmp_path / "toolwire.toml"
    config.write_text(
        f'[store]\nurl = "sqlite:///{tmp_path / "shared.db"}"\n\n'
        f'[sandbox]\nroots = ["{tmp_path}"]\nmode = "off"\n\n'
        '[tools]\ntoolsets = ["file", "process"]\n\n'
        "[replicas]\nenabled = true\n"
    )
    with (
        _replica(tmp_path / "a", "api-a", config) as (a, url_a),
        _replica(tmp_path / "b", "api-b", config) as (_, url_b),
    ):
        client = {"name": "t", "version": "1"}
        params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": client}
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
        opened = _post(url_a, hello)
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        assert (
            _post(
                url_a, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session
            ).status_code
            == 202
        )

        listing = _result(
            _post(url_b, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
        )
        assert "process_start" in {tool["name"] for tool in listing["tools"]}

        started = _call(url_a, session, "process_start", {"command": "sleep 60"})
        process_id = started["structuredContent"]["process_id"]
        assert process_id.endswith("@api-a")
        elsewhere = _call(url_b, session, "process_logs", {"process_id": process_id})
        assert elsewhere["isError"] is True
        text = elsewhere["content"][0]["text"]
        assert "belongs to replica 'api-a'" in text
        assert "served by replica 'api-b'" in text

        a.send_signal(signal.SIGKILL)  # a crash: no goodbye, its heartbeat just stops
        a.wait(WAIT_S)
        deadline = time.monotonic() + WAIT_S
        while True:  # b notices within three missed heartbeats (1.5 s) plus one of its own
            gone = _call(url_b, session, "process_logs", {"process_id": process_id})
            if "has stopped" in gone["content"][0]["text"]:
                break
            assert time.monotonic() < deadline, gone
            time.sleep(0.2)
        # the session lives on without the replica that opened it
        assert (
            _post(url_b, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, session).status_code
            == 200
        )
