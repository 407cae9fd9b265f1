"""Three real `toolwire serve --http` replicas on one shared store, behind HAProxy.

Each replica is a subprocess with a ``toolwire.toml`` of its own, in its own temp dir, naming
the same store (a Redis database or a PostgreSQL database claimed for this run alone) and the
same sandbox root (a temp dir every replica sees, so a file read through one replica and
written through another meets the same ``STALE_WRITE`` check). HAProxy balances round-robin,
with no stickiness, and checks each replica's health with a 2026-07-28 ``server/discover``
(the cheapest request that runs the whole MCP endpoint); every answer it forwards carries
``x-toolwire-replica: <name>``, so a test can see where a request was served.

Every wait is bounded: starting a replica or the proxy (`START_TIMEOUT_S`), stopping one
(`STOP_TIMEOUT_S`), a health state (`HEALTH_TIMEOUT_S`). ``benchmarks/bench_replicas.py``
starts its clusters with this module too.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from subprocesses import stop_process

__all__ = [
    "PINNED_DESCRIPTION",
    "QUOTA_TOOLS",
    "REPLICA_HEADER",
    "TOOLWIRE",
    "Cluster",
    "Replica",
    "claimed_postgres_database",
    "claimed_redis_database",
    "free_port",
    "haproxy_config",
    "pinned_server_config",
    "running_cluster",
    "wait_for_server_state",
]

TOOLWIRE = (sys.executable, "-m", "toolwire")
"""The command line of the CLI, in this interpreter."""
START_TIMEOUT_S = 60.0
"""How long a replica (three start at once on two cores) or the proxy may take to accept."""
STOP_TIMEOUT_S = 10.0
HEALTH_TIMEOUT_S = 20.0
REPLICA_HEADER = "x-toolwire-replica"
"""The response header HAProxy adds: the name of the replica that served the request."""
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
POSTGRES_ADMIN_DSN = "postgresql://postgres@127.0.0.1:5432/test"
_CLAIM_KEY = "toolwire:scaleout:claim"
_CLAIM_TTL_S = 3600
_HEALTH_BODY = (
    '{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":'
    '{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientCapabilities":{}}}}'
)


def free_port() -> int:
    """A TCP port nothing listens on at the moment, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _accepting(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


# -- the shared store, claimed for one run ----------------------------------------------------


@contextmanager
def claimed_redis_database() -> Iterator[str]:
    """A Redis database (1-15) nobody else uses, claimed with ``SET NX`` for this run; the
    store URL. Its keys are deleted at the end (the claim first guards against a database
    another suite is filling: only an empty one is claimed)."""
    import redis

    claim = uuid.uuid4().hex
    for index in range(1, 16):
        client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=index, socket_timeout=5)
        try:
            if client.dbsize() == 0 and client.set(_CLAIM_KEY, claim, nx=True, ex=_CLAIM_TTL_S):
                break
        finally:
            client.close()
    else:
        raise AssertionError("no empty Redis database (1-15) to claim for the scale-out test")
    try:
        yield f"redis://{REDIS_HOST}:{REDIS_PORT}/{index}"
    finally:
        client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=index, socket_timeout=5)
        try:
            for _ in range(10_000):  # bounded: SCAN pages of 500
                keys = list(client.scan_iter(match="toolwire:*", count=500))[:500]
                if not keys:
                    break
                client.delete(*keys)
        finally:
            client.close()


@contextmanager
def claimed_postgres_database() -> Iterator[str]:
    """A PostgreSQL database created for this run alone (dropped at the end); its URL."""
    import asyncio

    import asyncpg

    name = f"toolwire_scaleout_{uuid.uuid4().hex[:12]}"

    async def admin(statement: str) -> None:
        connection = await asyncpg.connect(POSTGRES_ADMIN_DSN, timeout=10)
        try:
            await connection.execute(statement, timeout=30)
        finally:
            await connection.close(timeout=5)

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


# -- replicas ---------------------------------------------------------------------------------


def _spawn(
    argv: list[str], log: Path, *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``argv`` with no stdin, its stdout and stderr appended to ``log``."""
    with log.open("ab") as sink:
        return subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, env=env
        )


def _terminate(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM ``process`` (if it runs), then SIGKILL after `STOP_TIMEOUT_S`."""
    stop_process(process, STOP_TIMEOUT_S)


@dataclass
class Replica:
    """One ``toolwire serve --http`` subprocess."""

    name: str
    port: int
    home: Path
    config: Path
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Its own MCP endpoint (bypassing the proxy)."""
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def address(self) -> str:
        """``127.0.0.1:<port>``."""
        return f"127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        """Where its stdout and stderr go."""
        return self.home / "serve.log"

    @property
    def alive(self) -> bool:
        """Whether its process is running."""
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the process (returns at once; `wait_accepting` waits for it)."""
        self.process = _spawn(
            [*TOOLWIRE, "--config", str(self.config), "serve", "--http", self.address],
            self.log,
            cwd=self.home,
            env={**os.environ, **self.env},
        )

    def wait_accepting(self, deadline: float) -> None:
        """Wait (until ``deadline``, monotonic) for the port to accept connections."""
        while time.monotonic() < deadline:
            if _accepting(self.port):
                return
            if not self.alive:
                break
            time.sleep(0.05)
        raise AssertionError(
            f"replica {self.name} did not start:\n{self.log.read_text(errors='replace')[-4000:]}"
        )

    def kill(self) -> None:
        """SIGKILL: the process dies without closing anything (what a crash looks like)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(STOP_TIMEOUT_S)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after `STOP_TIMEOUT_S`."""
        _terminate(self.process)


PINNED_SERVER = Path(__file__).parent / "pinned_server.py"
PINNED_DESCRIPTION = "Echo the text back (as first pinned)."
"""The description of the bridged ``echo`` tool the cluster's replicas pin."""


def pinned_server_config(description: str) -> str:
    """The ``[mcp.servers.pinned]`` table: a stdio server whose ``echo`` tool has
    ``description``, bridged into a replica (its definition is pinned on the store)."""
    return f"""
[mcp.servers.pinned]
command = "{sys.executable}"
args = ["{PINNED_SERVER}"]
env = {{ PINNED_DESCRIPTION = "{description}" }}
"""


QUOTA_TOOLS = {"healthy": "search_files", "after_kill": "patch_file"}
"""The tool each of the two global quotas covers (one used before a replica dies, one after);
no other test calls them."""


def replica_config(
    *, store_url: str, shared: Path, quota_name: str, quota_calls: int, extra: str = ""
) -> str:
    """The ``toolwire.toml`` every replica of a cluster gets: replicas on (the cluster named
    ``quota_name``: its stateless session), the shared store and sandbox root, result
    handles, and one global quota (``<quota_name>-<phase>``, ``quota_calls`` calls) per entry
    of `QUOTA_TOOLS`. Each replica's id, address and heartbeat come from its environment."""
    quotas = "".join(
        f"""
[[quotas]]
name = "{quota_name}-{phase}"
tools = ["{tool}"]
scope = "global"
calls = {quota_calls}
"""
        for phase, tool in QUOTA_TOOLS.items()
    )
    return f"""\
[replicas]
enabled = true
cluster = "{quota_name}"

[sandbox]
roots = ["{shared}"]

[store]
url = "{store_url}"

[tools]
toolsets = ["file", "memory", "todo", "kanban", "results", "terminal", "mcp"]
result_budget_chars = 8000

[result_handles]
ttl_s = 600
{quotas}{extra}"""


# -- HAProxy ----------------------------------------------------------------------------------


def haproxy_config(
    port: int,
    servers: Sequence[tuple[str, int]],
    *,
    stats_socket: Path | None = None,
    check_ms: int = 300,
) -> str:
    """An ``haproxy.cfg``: round-robin over ``servers`` (name, port) on 127.0.0.1, no
    stickiness, health-checked with ``server/discover`` and ``/healthz`` (the store answers)
    every ``check_ms``; a request that cannot connect to a replica is retried on another one.
    ``stats_socket``: where HAProxy answers ``show stat`` (the replicas' health as it sees
    them)."""
    lines = ["global", "  maxconn 4096"]
    if stats_socket is not None:
        lines.append(f"  stats socket {stats_socket} mode 600")
    lines += [
        "defaults",
        "  mode http",
        "  timeout connect 2s",
        "  timeout client 60s",
        "  timeout server 60s",
        "  timeout check 5s",  # a replica busy under load answers its check late, not never
        "  retries 3",
        "  option redispatch 1",
        "frontend mcp",
        f"  bind 127.0.0.1:{port}",
        "  default_backend replicas",
        "backend replicas",
        "  balance roundrobin",
        "  option httpchk",
        "  http-check connect",  # the MCP endpoint answers, then (below) the store does
        "  http-check send meth POST uri /mcp ver HTTP/1.1"
        f" hdr host 127.0.0.1:{port} hdr content-type application/json"
        " hdr accept application/json,text/event-stream"
        " hdr mcp-protocol-version 2026-07-28 hdr mcp-method server/discover"
        f" body '{_HEALTH_BODY}'",
        "  http-check expect status 200",
        "  http-check connect",
        f"  http-check send meth GET uri /healthz ver HTTP/1.1 hdr host 127.0.0.1:{port}",
        "  http-check expect status 200",
        f"  http-response set-header {REPLICA_HEADER} %s",
        f"  default-server inter {check_ms}ms fall 2 rise 2",
    ]
    lines += [f"  server {name} 127.0.0.1:{server_port} check" for name, server_port in servers]
    return "\n".join(lines) + "\n"


@dataclass
class Proxy:
    """The HAProxy subprocess in front of the replicas."""

    port: int
    config: Path
    stats_socket: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The MCP endpoint through the proxy."""
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self, home: Path) -> None:
        """Start ``haproxy -f cfg -db`` and wait until it accepts."""
        log = home / "haproxy.log"
        self.process = _spawn(["haproxy", "-f", str(self.config), "-db"], log)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if _accepting(self.port):
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"haproxy did not start:\n{log.read_text(errors='replace')}")

    def server_states(self) -> dict[str, str]:
        """Each replica's state as HAProxy sees it (``UP``, ``DOWN``, ...), from its stats."""
        with socket.socket(socket.AF_UNIX) as stats:
            stats.settimeout(5)
            stats.connect(str(self.stats_socket))
            stats.sendall(b"show stat\n")
            chunks = []
            while chunk := stats.recv(65536):
                chunks.append(chunk)
        rows = b"".join(chunks).decode().splitlines()
        header = rows[0].lstrip("# ").split(",")
        states = {}
        for row in rows[1:]:
            values = dict(zip(header, row.split(","), strict=False))
            if values.get("pxname") == "replicas" and values.get("svname") not in (
                "BACKEND", "FRONTEND"
            ):  # fmt: skip
                states[values["svname"]] = values["status"].split(" ")[0]
        return states

    def stop(self) -> None:
        """SIGTERM (HAProxy stops at once in ``-db`` mode), SIGKILL if it lingers."""
        _terminate(self.process)


@dataclass
class Cluster:
    """Replicas on one store, behind one proxy."""

    store_url: str
    shared: Path
    quota_name: str
    quota_calls: int
    replicas: list[Replica]
    proxy: Proxy
    home: Path

    @property
    def url(self) -> str:
        """The endpoint clients use: the proxy's."""
        return self.proxy.url

    def replica(self, name: str) -> Replica:
        """The replica called ``name``."""
        return next(r for r in self.replicas if r.name == name)

    @contextmanager
    def extra_replica(self, name: str, extra_config: str) -> Iterator[Replica]:
        """One more replica on the same store, outside the proxy, whose toolwire.toml ends
        with ``extra_config`` instead of the cluster's; running until the block ends."""
        text = replica_config(
            store_url=self.store_url,
            shared=self.shared,
            quota_name=self.quota_name,
            quota_calls=self.quota_calls,
            extra=extra_config,
        )
        replica = new_replica(self.home, name, text, cluster_name=self.quota_name, env=None)
        replica.start()
        try:
            replica.wait_accepting(time.monotonic() + START_TIMEOUT_S)
            yield replica
        finally:
            replica.stop()

    def restart(self, replica: Replica) -> None:
        """Start a stopped or killed replica again on its port and wait until HAProxy sees
        it up."""
        replica.start()
        replica.wait_accepting(time.monotonic() + START_TIMEOUT_S)
        wait_for_server_state(self.proxy, replica.name, "UP")


def wait_for_server_state(proxy: Proxy, name: str, state: str) -> None:
    """Wait (bounded) until HAProxy reports ``name`` in ``state``."""
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    seen: dict[str, str] = {}
    while time.monotonic() < deadline:
        seen = proxy.server_states()
        if seen.get(name) == state:
            return
        time.sleep(0.1)
    raise AssertionError(f"HAProxy never saw {name} {state}: {seen}")


def new_replica(
    home: Path, name: str, config_text: str, *, cluster_name: str, env: dict[str, str] | None
) -> Replica:
    """A replica called ``name`` in ``home/<name>`` with ``config_text`` as its toolwire.toml
    and the ``TOOLWIRE_REPLICA*`` variables of ``cluster_name`` (not started)."""
    replica_home = home / name
    replica_home.mkdir()
    config = replica_home / "toolwire.toml"
    config.write_text(config_text)
    port = free_port()
    replica_env = {
        "TOOLWIRE_REPLICA_ID": name,
        "TOOLWIRE_REPLICA_CLUSTER": cluster_name,  # this run's stateless session
        "TOOLWIRE_REPLICA_ADDRESS": f"http://127.0.0.1:{port}/mcp",
        "TOOLWIRE_REPLICA_HEARTBEAT_S": "1",
        **(env or {}),
    }
    return Replica(name=name, port=port, home=replica_home, config=config, env=replica_env)


@contextmanager
def running_cluster(
    home: Path,
    store_url: str,
    *,
    replicas: int = 3,
    quota_calls: int = 12,
    extra_config: str = "",
    env: dict[str, str] | None = None,
    check_ms: int = 300,
) -> Iterator[Cluster]:
    """``replicas`` replicas on ``store_url`` behind HAProxy (health-checked every
    ``check_ms``), in temp dirs under ``home``; every process is stopped on exit (replicas
    SIGTERM, then SIGKILL)."""
    if shutil.which("haproxy") is None:
        raise AssertionError("haproxy is missing: run scripts/system-deps.sh (make sysdeps)")
    shared = home / "shared"
    shared.mkdir()
    quota_name = f"scaleout-{uuid.uuid4().hex[:8]}"  # also the cluster's name
    config_text = replica_config(
        store_url=store_url,
        shared=shared,
        quota_name=quota_name,
        quota_calls=quota_calls,
        extra=extra_config,
    )
    members = [
        new_replica(home, f"r{index}", config_text, cluster_name=quota_name, env=env)
        for index in range(replicas)
    ]
    port = free_port()
    proxy_config = home / "haproxy.cfg"
    stats = home / "haproxy.sock"
    proxy_config.write_text(
        haproxy_config(
            port, [(r.name, r.port) for r in members], stats_socket=stats, check_ms=check_ms
        )
    )
    proxy = Proxy(port=port, config=proxy_config, stats_socket=stats)
    cluster = Cluster(
        store_url=store_url,
        shared=shared,
        quota_name=quota_name,
        quota_calls=quota_calls,
        replicas=members,
        proxy=proxy,
        home=home,
    )
    try:
        for replica in members:
            replica.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        for replica in members:
            replica.wait_accepting(deadline)
        proxy.start(home)
        for replica in members:
            wait_for_server_state(proxy, replica.name, "UP")
        yield cluster
    finally:
        proxy.stop()
        for replica in members:
            replica.stop()
