"""The relay of a sandbox with network, in real sandboxes: socat when the sandbox sees it,
relay.py otherwise; both reach an allowed host through the proxy and nothing else, pass a
half-close on, end with the sandbox, and outlive a command that used up its processes."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import pytest
from egress_helpers import CANARY_HOST, require_command, running_canary
from sandbox_helpers import marker

from toolwire.capabilities.kinds.network import StaticResolver
from toolwire.capabilities.kinds.process._backends import ProcessRequest
from toolwire.capabilities.kinds.process._runner import scrubbed_env
from toolwire.capabilities.kinds.process.sandbox import (
    BubblewrapProbe,
    Confinement,
    NetworkReach,
    SandboxLimits,
)
from toolwire.capabilities.kinds.process.sandbox._probe import bwrap_namespace_flags
from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend
from toolwire.capabilities.kinds.process.sandbox.relays import socat_relay
from toolwire.capabilities.seams import NetworkPolicy, ProcessResult
from toolwire.context import AbortSignal
from toolwire.errors import ConfigurationError

pytestmark = pytest.mark.usefixtures("bwrap")

FETCH = """
import sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen(sys.argv[1], timeout=10) as reply:
        print(reply.status, reply.read().decode())
except urllib.error.HTTPError as exc:
    print(exc.code, exc.headers.get("X-Toolwire-Refusal"))
except OSError as exc:
    print("failed", exc)
"""

DIRECT = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
    print("connected")
except OSError as exc:
    print("refused", exc.errno)
"""

TUNNEL = """
import socket, sys
with socket.create_connection(("127.0.0.1", 3128), timeout=30) as conn:
    conn.sendall(b"CONNECT %s HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n" % sys.argv[1].encode())
    head = b""
    while b"\\r\\n\\r\\n" not in head:
        head += conn.recv(1)
    conn.sendall(b"request")
    conn.shutdown(socket.SHUT_WR)
    answer = b""
    while chunk := conn.recv(65536):
        answer += chunk
print(head.split(b"\\r\\n")[0].decode(), answer.decode())
"""

STARVE = """
import subprocess, sys, time, urllib.request
held = []
try:
    while len(held) < 64:
        held.append(subprocess.Popen(["sleep", "60"]))
except OSError:
    pass
try:  # at the bound: socat cannot fork for this connection
    urllib.request.urlopen(sys.argv[1], timeout=5).read()
except OSError:
    pass
for process in held:
    process.kill()
    process.wait()
deadline = time.monotonic() + 30  # a bound for a relay that is gone, not a speed assertion
while True:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=10) as reply:
            print(len(held) > 0, reply.status)
            break
    except OSError as exc:
        if time.monotonic() > deadline:
            print(len(held) > 0, "failed", exc)
            break
        time.sleep(0.1)
"""

KINDS = ["socat", "python"]


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    """Which relay the sandbox runs (socat is required where it is tested)."""
    if request.param == "socat":
        require_command("socat")
    return str(request.param)


def _write_scripts(work: Path) -> None:
    work.mkdir(exist_ok=True)
    scripts = {"fetch.py": FETCH, "direct.py": DIRECT, "tunnel.py": TUNNEL, "starve.py": STARVE}
    for name, text in scripts.items():
        (work / name).write_text(text)


@asynccontextmanager
async def networked(
    kind: str, work: Path, resolver: StaticResolver, limits: SandboxLimits | None = None
) -> AsyncIterator[SandboxedProcessBackend]:
    """A sandbox backend running ``kind`` as its relay, ``work`` holding the scripts."""
    await anyio.to_thread.run_sync(_write_scripts, work)
    backend = SandboxedProcessBackend(
        limits=limits or SandboxLimits(),
        egress_resolver=resolver,
        egress_relay="socat" if kind == "socat" else "python",
    )
    async with backend:
        yield backend


def reach(work: Path, policy: NetworkPolicy) -> Confinement:
    """``work`` read-write, and ``canary.test`` through the proxy under ``policy``."""
    network = NetworkReach(allowed_hosts=(CANARY_HOST,), policy=policy)
    return Confinement(read_roots=(str(work),), write_roots=(str(work),), network=network)


async def run(
    backend: SandboxedProcessBackend,
    work: Path,
    confinement: Confinement,
    *argv: str,
    abort_signal: AbortSignal | None = None,
) -> ProcessResult:
    """``argv`` in a sandbox of ``backend`` working in ``work``."""
    request = ProcessRequest(
        argv=list(argv),
        cwd=str(work),
        env=scrubbed_env(),
        timeout_s=120,
        abort_signal=abort_signal,
        confinement=confinement,
    )
    return await backend.run(request)


@contextmanager
def late_echo(answer_after_s: float) -> Iterator[int]:
    """A TCP server on 127.0.0.1 answering ``echo:`` + what it read, ``answer_after_s`` after
    the client's end of data."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
            time.sleep(answer_after_s)
            conn.sendall(b"echo:" + data)

    def accept_loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(30)
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        listener.close()


def processes_in_net_namespace(namespace: str) -> list[str]:
    """The names of the host's live processes in the network namespace ``net:[inode]``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/ns/net") != namespace:
                continue
            with open(f"/proc/{entry}/stat") as handle:
                name, _, rest = handle.read().partition(") ")
            if rest.split()[0] not in ("Z", "X"):
                found.append(name.partition(" (")[2])
        except OSError:
            continue
    return found


def test_auto_runs_socat_when_the_sandbox_sees_it(tmp_path: Path) -> None:
    require_command("socat")
    backend = SandboxedProcessBackend()
    assert backend.egress_relay == "socat"
    assert backend.description.endswith("network relayed by socat")


def test_without_socat_in_sight_auto_falls_back_and_socat_is_refused() -> None:
    fallback = SandboxedProcessBackend(system_paths=("/etc",))
    assert fallback.egress_relay == "python"
    assert fallback.description.endswith("network relayed by python3 relay.py")
    with pytest.raises(ConfigurationError, match="apt-get install socat"):
        SandboxedProcessBackend(egress_relay="socat", system_paths=("/etc",))


@pytest.mark.anyio
async def test_the_relay_that_runs_is_the_one_chosen(tmp_path: Path, kind: str) -> None:
    with running_canary() as canary:
        async with networked(kind, tmp_path / "work", canary.resolver) as backend:
            listing = "cat /proc/[0-9]*/comm"
            confinement = reach(tmp_path / "work", canary.policy)
            done = await run(backend, tmp_path / "work", confinement, "sh", "-c", listing)
    names = done.stdout.split()
    assert ("socat" in names, "python3" in names) == (kind == "socat", kind == "python")


@pytest.mark.anyio
async def test_an_allowed_host_is_reached_and_the_rest_is_refused(
    tmp_path: Path, kind: str
) -> None:
    work = tmp_path / "work"
    with running_canary() as canary:
        async with networked(kind, work, canary.resolver) as backend:
            confinement = reach(work, canary.policy)
            allowed = await run(
                backend, work, confinement, "python3", "fetch.py", canary.url("/in")
            )
            denied = await run(
                backend, work, confinement, "python3", "fetch.py", "http://elsewhere.test/"
            )
            direct = await run(backend, work, confinement, "python3", "direct.py", str(canary.port))
    assert allowed.stdout == f"200 canary {CANARY_HOST}:{canary.port} /in\n"
    assert denied.stdout == "403 not-declared\n"
    assert direct.stdout.startswith("refused")  # around the proxy: nothing there
    assert [hit.path for hit in canary.hits] == ["/in"]


@pytest.mark.anyio
async def test_a_half_close_crosses_the_relay_and_a_late_answer_arrives(
    tmp_path: Path, kind: str
) -> None:
    work = tmp_path / "work"
    with late_echo(answer_after_s=1.5) as port:
        resolver = StaticResolver({CANARY_HOST: ["127.0.0.1"]})
        policy = NetworkPolicy(
            allow=(CANARY_HOST, f"{CANARY_HOST}:{port}"), allow_private_urls=True
        )
        async with networked(kind, work, resolver) as backend:
            target = f"{CANARY_HOST}:{port}"
            done = await run(backend, work, reach(work, policy), "python3", "tunnel.py", target)
    assert done.stdout == "HTTP/1.1 200 Connection established echo:request\n", done.stderr


@pytest.mark.anyio
async def test_the_relay_is_gone_once_the_command_ends(tmp_path: Path, kind: str) -> None:
    work = tmp_path / "work"
    sleep = marker()
    with running_canary() as canary:
        async with networked(kind, work, canary.resolver) as backend:
            script = f"readlink /proc/self/ns/net > ns.txt; exec sleep {sleep}"
            stop = AbortSignal()
            during: list[str] = []

            async def watch() -> None:
                with anyio.fail_after(30):
                    while not (work / "ns.txt").exists() or not (work / "ns.txt").read_text():
                        await anyio.sleep(0.02)
                during.extend(processes_in_net_namespace((work / "ns.txt").read_text().strip()))
                stop.abort("seen")

            async with anyio.create_task_group() as group:
                group.start_soon(watch)
                done = await run(
                    backend, work, reach(work, canary.policy), "sh", "-c", script, abort_signal=stop
                )
            after = processes_in_net_namespace((work / "ns.txt").read_text().strip())
    assert done.aborted
    relay = "socat" if kind == "socat" else "python3"
    assert relay in during  # the relay ran in the sandbox's namespace ...
    assert after == []  # ... and nothing of the sandbox is left


@pytest.mark.anyio
async def test_the_relay_outlives_a_command_that_used_up_its_processes(
    tmp_path: Path, kind: str
) -> None:
    work = tmp_path / "work"
    with running_canary() as canary:
        limits = SandboxLimits(max_processes=16)
        async with networked(kind, work, canary.resolver, limits) as backend:
            url = canary.url("/after")
            done = await run(backend, work, reach(work, canary.policy), "python3", "starve.py", url)
    assert done.stdout == "True 200\n", done.stderr


@pytest.mark.anyio
async def test_socat_is_no_child_of_the_command(tmp_path: Path) -> None:
    # a command that waits for every child it has (a shell's bare `wait`, a supervisor) must
    # not wait for the relay (relay.py, a child of its launcher, is one: the fallback's limit)
    require_command("socat")
    work = tmp_path / "work"
    waits = "import os\ntry:\n    os.wait()\nexcept ChildProcessError:\n    print('no child')"
    with running_canary() as canary:
        async with networked("socat", work, canary.resolver) as backend:
            done = await run(backend, work, reach(work, canary.policy), "python3", "-c", waits)
    assert done.stdout == "no child\n", done.stderr


def _launcher_in_bwrap(
    probe: BubblewrapProbe, tmp_path: Path, launcher: tuple[str, ...], *command: str
) -> subprocess.CompletedProcess[str]:
    assert probe.path is not None
    argv = [
        probe.path, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
        "--bind", str(tmp_path), str(tmp_path), *bwrap_namespace_flags(), "--",
        *launcher, *command,
    ]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_a_socat_that_does_not_start_stops_the_command_with_125(
    bwrap: BubblewrapProbe, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    launcher = socat_relay("/bin/false", nproc=0, max_processes=512).launcher
    done = _launcher_in_bwrap(bwrap, tmp_path, launcher, "touch", str(ran))
    assert done.returncode == 125
    assert "the egress relay did not start" in done.stderr
    assert not ran.exists()


def test_the_socat_launcher_sets_the_process_limit_it_is_given(
    bwrap: BubblewrapProbe, tmp_path: Path
) -> None:
    socat = require_command("socat")
    launcher = socat_relay(socat, nproc=37, max_processes=37).launcher
    done = _launcher_in_bwrap(
        bwrap, tmp_path, launcher, "sh", "-c", "ulimit -u 2>/dev/null || ulimit -p"
    )
    assert (done.returncode, done.stdout) == (0, "37\n"), done.stderr
