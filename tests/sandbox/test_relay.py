"""The in-sandbox relays: TCP to the proxy's Unix socket, relay.py run by a bare ``python3``,
and socat with the arguments a sandbox gives it (the shared tests run against both)."""

from __future__ import annotations

import ast
import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio.from_thread
import httpx
import pytest
from egress_helpers import (
    CANARY_HOST,
    closed_port,
    raw_exchange,
    require_command,
    running_canary,
    status_and_code,
)

from toolwire.capabilities.kinds.process.sandbox import relay as relay_module
from toolwire.capabilities.kinds.process.sandbox.egress import EgressProxy
from toolwire.capabilities.kinds.process.sandbox.relay import parse_listen
from toolwire.capabilities.kinds.process.sandbox.relays import socat_arguments

RELAY = Path(relay_module.__file__)
PYTHON = shutil.which("python3") or sys.executable
BARE = [PYTHON, "-I", "-S"]  # isolated, no site-packages: the standard library only


def _relay_command(port: int, socket_path: str | Path) -> list[str]:
    return [*BARE, str(RELAY), "--listen", f"127.0.0.1:{port}", "--connect", str(socket_path)]


def _socat_command(port: int, socket_path: str | Path) -> list[str]:
    arguments = socat_arguments(
        host="127.0.0.1", port=port, connect=str(socket_path), max_processes=0
    )
    return [require_command("socat"), *arguments]


@contextmanager
def running_relay(
    socket_path: str | Path, kind: str = "python"
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """The relay on a free port, once it listens (relay.py's ``ready``, socat's first log
    line, as in a sandbox); stopped with SIGTERM afterwards."""
    port = closed_port()
    command = (
        _relay_command(port, socket_path) if kind == "python" else _socat_command(port, socket_path)
    )
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert process.stdout is not None
        assert process.stderr is not None
        if kind == "python":
            assert process.stdout.readline() == b"ready\n"
        else:
            assert b" N listening on " in process.stderr.readline()
        yield port, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


@pytest.fixture(params=["python", "socat"])
def kind(request: pytest.FixtureRequest) -> str:
    """Which relay a shared test runs against."""
    return str(request.param)


@contextmanager
def unix_echo(path: Path, *, answer_after_s: float = 0.0) -> Iterator[list[bytes]]:
    """A Unix socket server: reads until end of data, answers ``echo:`` + it (after
    ``answer_after_s``), closes."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    server.settimeout(0.05)
    received: list[bytes] = []
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
            received.append(data)
            time.sleep(answer_after_s)
            conn.sendall(b"echo:" + data)

    def accept_loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            conn.settimeout(None)
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        stop.set()
        thread.join()
        server.close()


def _dead(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")


def test_bytes_cross_both_ways_and_a_half_close_is_passed_on(tmp_path: Path, kind: str) -> None:
    sock = tmp_path / "echo.sock"
    payload = os.urandom(3 * 1024 * 1024)
    with unix_echo(sock) as received, running_relay(sock, kind) as (port, _):
        answer = raw_exchange(("127.0.0.1", port), payload)
    assert answer == b"echo:" + payload  # the server answered only after our end of data
    assert received == [payload]


def test_an_answer_long_after_the_half_close_still_arrives(tmp_path: Path, kind: str) -> None:
    # socat's own default gives the other side half a second after one side's end of data
    sock = tmp_path / "echo.sock"
    with unix_echo(sock, answer_after_s=1.5), running_relay(sock, kind) as (port, _):
        answer = raw_exchange(("127.0.0.1", port), b"request")
    assert answer == b"echo:request"


def test_several_connections_are_relayed_at_once(tmp_path: Path, kind: str) -> None:
    sock = tmp_path / "echo.sock"
    answers: dict[int, bytes] = {}
    with unix_echo(sock), running_relay(sock, kind) as (port, _):

        def client(index: int) -> None:
            answers[index] = raw_exchange(("127.0.0.1", port), b"client %d " % index * 1000)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert answers == {i: b"echo:" + b"client %d " % i * 1000 for i in range(8)}


def test_it_prints_only_ready_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    with unix_echo(tmp_path / "echo.sock"), running_relay(tmp_path / "echo.sock") as (_, process):
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (0, b"", b"")


def test_it_exits_when_its_parent_dies(tmp_path: Path) -> None:
    launcher = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen({_relay_command(closed_port(), tmp_path / 's')!r},"
        " stdout=subprocess.PIPE)\n"
        "print(child.pid, child.stdout.readline().decode().strip(), flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([*BARE, "-c", launcher], stdout=subprocess.PIPE)
    assert parent.stdout is not None
    pid_text, said = parent.stdout.readline().decode().split()
    relay_pid = int(pid_text)
    assert said == "ready"
    assert not _dead(relay_pid)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30  # a bound for a broken relay, not a speed assertion
    while not _dead(relay_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _dead(relay_pid)


def test_a_missing_socket_closes_the_client_and_the_relay_goes_on(
    tmp_path: Path, kind: str
) -> None:
    sock = tmp_path / "later.sock"
    with running_relay(sock, kind) as (port, process):
        assert raw_exchange(("127.0.0.1", port), b"hello") == b""
        with unix_echo(sock):
            assert raw_exchange(("127.0.0.1", port), b"hello") == b"echo:hello"
        assert process.poll() is None


def test_bad_arguments_and_a_busy_port_fail_with_a_message(tmp_path: Path) -> None:
    bad = subprocess.run(
        [*BARE, str(RELAY), "--listen", "nowhere", "--connect", "x"], capture_output=True
    )
    assert bad.returncode == 2
    assert b"--listen must be host:port" in bad.stderr
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        taken = subprocess.run(_relay_command(port, tmp_path / "s"), capture_output=True)
    assert taken.returncode == 1
    assert taken.stdout == b""
    assert b"cannot listen on 127.0.0.1:" in taken.stderr


def test_it_imports_the_standard_library_only() -> None:
    tree = ast.parse(RELAY.read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= sys.stdlib_module_names | {"__future__"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("127.0.0.1:3128", ("127.0.0.1", 3128)), ("[::1]:80", ("::1", 80)), ("lo:0", ("lo", 0))],
)
def test_parse_listen(text: str, expected: tuple[str, int]) -> None:
    assert parse_listen(text) == expected


@pytest.mark.parametrize("text", ["3128", ":80", "host:", "host:http", "host:70000"])
def test_parse_listen_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="host:port"):
        parse_listen(text)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_relay_and_the_proxy_reach_the_canary_and_refuse_the_rest(
    tmp_path: Path, backend: str, kind: str
) -> None:
    sock = str(tmp_path / "egress.sock")
    with (
        running_canary() as canary,
        anyio.from_thread.start_blocking_portal(backend) as portal,
        portal.wrap_async_context_manager(EgressProxy(canary.resolver)) as proxy,
    ):
        portal.call(functools.partial(proxy.serve_unix, sock, canary.policy))
        with running_relay(sock, kind) as (port, _):
            relay_url = f"http://127.0.0.1:{port}"
            with httpx.Client(proxy=relay_url, trust_env=False) as client:
                plain = client.get(canary.url("/plain"))
                metadata = client.get("http://169.254.169.254/latest/meta-data/")
            tunnel = b"CONNECT %s:%d HTTP/1.1\r\nHost: x\r\n\r\n" % (
                CANARY_HOST.encode(),
                canary.port,
            )
            tunnelled = raw_exchange(
                ("127.0.0.1", port),
                tunnel + b"GET /tunnel HTTP/1.1\r\nHost: canary.test\r\nConnection: close\r\n\r\n",
            )
            fetched = subprocess.run(
                [require_command("curl"), "-sS", "-p", "-x", relay_url, canary.url("/curl")],
                capture_output=True,
            )
    assert fetched.stdout.decode() == f"canary {CANARY_HOST}:{canary.port} /curl"
    assert plain.text == f"canary {CANARY_HOST}:{canary.port} /plain"
    assert (metadata.status_code, metadata.headers["x-toolwire-refusal"]) == (403, "metadata")
    assert status_and_code(tunnelled) == (200, None)
    assert tunnelled.endswith(f"canary {CANARY_HOST} /tunnel".encode())
