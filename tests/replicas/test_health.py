"""``GET /healthz``: 200 while the store answers, 503 when it is down or silent."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from stores import unique

from service_checks import require_service
from subprocesses import stop_process
from toolwire.mcp.server.health import HEALTH_PATH, health_route
from toolwire.stores import create_kv_backend

START_TIMEOUT_S = 60.0
WAIT_S = 20.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _get(backend_url: str | None, *, timeout_s: float = 2.0) -> httpx.Response:
    backend = None if backend_url is None else create_kv_backend(backend_url)
    try:
        app = Starlette(routes=[health_route(backend, timeout_s=timeout_s)])
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            answer = await client.get(HEALTH_PATH)
            head = await client.head(HEALTH_PATH)
            assert head.status_code == answer.status_code
            assert head.content == b""
            return answer
    finally:
        if backend is not None:
            await backend.aclose()


@pytest.mark.anyio
async def test_a_store_that_answers_is_healthy_and_no_store_is_too(tmp_path: Path) -> None:
    answer = await _get(f"sqlite:///{tmp_path / 'kv.db'}")
    assert (answer.status_code, answer.json()) == (200, {"status": "ok", "store": "ok"})
    assert answer.headers["cache-control"] == "no-store"
    answer = await _get(None)
    assert (answer.status_code, answer.json()) == (200, {"status": "ok", "store": "none"})


@pytest.mark.anyio
async def test_a_redis_url_on_a_closed_port_is_unavailable_and_says_no_more() -> None:
    port = _free_port()  # nothing listens there
    answer = await _get(f"redis://127.0.0.1:{port}/0")
    assert answer.status_code == 503
    assert answer.json() == {"status": "unavailable", "store": "unreachable"}
    assert str(port) not in answer.text  # no URL, no error text


@pytest.mark.anyio
async def test_a_store_that_accepts_but_never_answers_times_out() -> None:
    with socket.socket() as silent:  # takes the connection, never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        with anyio.fail_after(15):
            answer = await _get(f"redis://127.0.0.1:{port}/0", timeout_s=0.5)
    assert answer.status_code == 503
    assert answer.json() == {"status": "unavailable", "store": "timeout"}


class _Relay:
    """A TCP relay on a free loopback port to the shared Redis: closing it is this test's
    own store outage (nothing anyone else uses goes down)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(source, sink), daemon=True).start()

    def close(self) -> None:
        """Refuse new connections and cut the open ones."""
        self.listener.close()
        for each in self.sockets:
            with contextlib.suppress(OSError):
                each.shutdown(socket.SHUT_RDWR)
            each.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path | None = None) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            text = log.read_text(errors="replace") if log is not None else ""
            assert process.poll() is None, text
            assert time.monotonic() < deadline, text
            time.sleep(0.1)


@contextmanager
def _serve(home: Path, store_url: str, *, replicas: bool) -> Iterator[str]:
    """``toolwire serve --http`` on ``store_url`` in ``home``; its base URL."""
    home.mkdir()
    config = home / "toolwire.toml"
    config.write_text(
        f'[store]\nurl = "{store_url}"\n\n[sandbox]\nroots = ["{home}"]\nmode = "off"\n\n'
        '[tools]\ntoolsets = ["file"]\n' + ("\n[replicas]\nenabled = true\n" if replicas else "")
    )
    port = _free_port()
    log = home / "serve.log"
    env = {**os.environ, "TOOLWIRE_REPLICA_ID": "api-h", "TOOLWIRE_REPLICA_HEARTBEAT_S": "0.5"}
    command = [sys.executable, "-m", "toolwire", "--config", str(config), "serve", "--http"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [*command, f"127.0.0.1:{port}"],
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        _wait_for_port(port, process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(process, WAIT_S)


def test_a_replica_is_healthy_until_its_store_goes_down(tmp_path: Path) -> None:
    require_service("Redis", "127.0.0.1", 6379)
    relay = _Relay(("127.0.0.1", 6379))
    try:
        url = f"redis://127.0.0.1:{relay.port}/0?prefix={unique('health')}"
        with _serve(tmp_path / "replica", url, replicas=True) as base:
            answer = httpx.get(base + HEALTH_PATH, timeout=WAIT_S)
            assert (answer.status_code, answer.json()["store"]) == (200, "ok")
            relay.close()  # the store is gone for this replica
            answer = httpx.get(base + HEALTH_PATH, timeout=WAIT_S)
            assert answer.status_code == 503
            assert answer.json() == {"status": "unavailable", "store": "unreachable"}
            assert str(relay.port) not in answer.text
    finally:
        relay.close()


def test_serve_with_a_store_on_a_closed_port_fails_its_health_check(tmp_path: Path) -> None:
    closed = _free_port()
    with _serve(tmp_path / "server", f"redis://127.0.0.1:{closed}/0", replicas=False) as base:
        answer = httpx.get(base + HEALTH_PATH, timeout=WAIT_S)  # no credentials needed
        assert answer.status_code == 503
        assert answer.json()["store"] == "unreachable"
