"""The egress proxy refuses what the network policy refuses, and answers every failure."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
from egress_helpers import (
    CANARY_HOST,
    CountingResolver,
    EgressCanary,
    closed_port,
    exchange,
    hanging_up_server,
    running_canary,
    serve_canary,
    silent_server,
    status_and_code,
)

from toolwire.capabilities.kinds.process.sandbox.egress import (
    EgressLimits,
    EgressListener,
    EgressProxy,
)
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import ConfigurationError

pytestmark = pytest.mark.anyio

LOCAL = NetworkPolicy(allow_private_urls=True)
OPEN = NetworkPolicy()
NOWHERE = NetworkPolicy(allow=("only.invalid",))
"""Refuses every well-formed request, so no test reaches a public address."""


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def canary() -> Iterator[EgressCanary]:
    with running_canary() as running:
        yield running


@pytest.fixture
async def proxy(canary: EgressCanary) -> AsyncIterator[EgressProxy]:
    resolver = CountingResolver(
        {
            CANARY_HOST: ["127.0.0.1"],
            "public.test": ["93.184.215.14"],
            "mixed.test": ["93.184.215.14", "127.0.0.1"],
            "inner.test": ["10.1.2.3"],
            "imds.test": ["169.254.169.254"],
            "mapped.test": ["::ffff:127.0.0.1"],
        }
    )
    async with EgressProxy(resolver) as running:
        yield running


async def ask(listener: EgressListener, request: str | bytes) -> tuple[int, str | None, bytes]:
    """Send a raw request; the answer's status, refusal code and body."""
    assert listener.address is not None
    data = request.encode() if isinstance(request, str) else request
    answer = await exchange(listener.address, data)
    status, code = status_and_code(answer)
    return status, code, answer.partition(b"\r\n\r\n")[2]


def get(url: str) -> str:
    return f"GET {url} HTTP/1.1\r\nHost: x\r\n\r\n"


def connect(authority: str) -> str:
    return f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n"


@pytest.mark.parametrize(
    ("policy", "request_text", "code"),
    [
        (OPEN, get("http://127.0.0.1/"), "private-address"),
        (OPEN, get("http://2130706433/"), "private-address"),
        (OPEN, get("http://[::1]/"), "private-address"),
        (OPEN, get("http://localhost/"), "private-address"),
        (OPEN, get("http://10.0.0.1/"), "private-address"),
        (OPEN, get("http://192.168.1.1/"), "private-address"),
        (OPEN, get("http://inner.test/"), "private-address"),
        (OPEN, get("http://mixed.test/"), "private-address"),
        (OPEN, get("http://mapped.test/"), "private-address"),
        (OPEN, get("http://[::ffff:7f00:1]/"), "private-address"),
        (OPEN, connect("127.0.0.1:443"), "private-address"),
        (OPEN, connect("localhost:443"), "private-address"),
        (OPEN, connect("mixed.test:443"), "private-address"),
        (LOCAL, get("http://169.254.169.254/latest/meta-data/"), "metadata"),
        (LOCAL, get("http://[fd00:ec2::254]/latest/"), "metadata"),
        (LOCAL, get("http://metadata.google.internal/computeMetadata/v1/"), "metadata"),
        (LOCAL, get("http://0xa9.254.169.254/"), "metadata"),
        (LOCAL, get("http://[::ffff:169.254.169.254]/"), "metadata"),
        (LOCAL, get("http://imds.test/"), "metadata"),
        (LOCAL, connect("169.254.169.254:80"), "metadata"),
        (LOCAL, connect("[fd00:ec2::254]:80"), "metadata"),
        (LOCAL, connect("metadata.google.internal:443"), "metadata"),
        (LOCAL, get("http://0.0.0.0/"), "reserved-address"),
        (LOCAL, connect("[ff02::1]:443"), "reserved-address"),
        (OPEN, get("http://unknown.test/"), "dns-failure"),
        (OPEN, connect("unknown.test:443"), "dns-failure"),
        (OPEN, get("ftp://public.test/file"), "scheme-not-allowed"),
        (OPEN, get("http://user:pw@public.test/"), "credentials-in-url"),
        (OPEN, get("http://public.test:25/"), "port-not-allowed"),
        (OPEN, connect("public.test:22"), "port-not-allowed"),
        (NetworkPolicy(deny=("*.test",)), get("http://public.test/"), "deny-list"),
        (NetworkPolicy(deny=("public.test:443",)), connect("public.test:443"), "deny-list"),
        (NetworkPolicy(allow=("other.test",)), get("http://public.test/"), "not-on-allow-list"),
        (NetworkPolicy(allow=("other.test",)), connect("public.test:443"), "not-on-allow-list"),
    ],
)
async def test_refused_destinations_get_403_with_the_reason(
    proxy: EgressProxy, policy: NetworkPolicy, request_text: str, code: str
) -> None:
    listener = await proxy.serve_tcp(policy=policy)
    status, got, body = await ask(listener, request_text)
    assert (status, got) == (403, code)
    assert body.strip()
    assert b"HOST_NOT_ALLOWED" not in body


async def test_refusal_reasons_name_the_host_and_the_rule(proxy: EgressProxy) -> None:
    listener = await proxy.serve_tcp(policy=NetworkPolicy(deny=("*.test",)))
    _, _, denied = await ask(listener, get("http://public.test/x?secret=1"))
    _, _, private = await ask(listener, get("http://10.0.0.1/"))
    assert denied == b"host 'public.test' is on the deny list (matched '*.test')\n"
    assert b"10.0.0.1" in private
    assert b"Private-Use" in private


async def test_refused_requests_never_reach_the_canary(
    proxy: EgressProxy, canary: EgressCanary
) -> None:
    listener = await proxy.serve_tcp(policy=OPEN, ports=None)
    for url in (canary.url("/"), canary.url("/", "127.0.0.1"), canary.url("/", "localhost")):
        status, code, _ = await ask(listener, get(url))
        assert (status, code) == (403, "private-address")
    assert canary.hits == []


async def test_the_connection_goes_to_the_checked_address_only(canary: EgressCanary) -> None:
    """A name answering the canary first and a trap afterwards (DNS rebinding) reaches only
    the canary: the proxy looks the name up once per request and connects to what it checked."""
    port = canary.port
    try:
        trap_context = serve_canary(address=("127.0.0.2", port))
        trap = trap_context.__enter__()
    except OSError:
        pytest.skip("127.0.0.2 cannot take the canary's port here")
    through_tunnel = (
        f"CONNECT rebind.test:{port} HTTP/1.1\r\nHost: rebind.test:{port}\r\n\r\n"
        f"GET /tunnelled HTTP/1.1\r\nHost: rebind.test\r\nConnection: close\r\n\r\n"
    )
    lookups = []
    try:
        for request in (get(f"http://rebind.test:{port}/forwarded"), through_tunnel):
            resolver = CountingResolver(
                {"rebind.test": ["127.0.0.1"]}, {"rebind.test": ["127.0.0.2"]}
            )
            async with EgressProxy(resolver) as proxy:
                listener = await proxy.serve_tcp(policy=LOCAL, ports=None)
                status, _, body = await ask(listener, request)
            assert status == 200
            assert b"canary rebind.test" in body
            lookups.append(len(resolver.lookups))
    finally:
        trap_context.__exit__(None, None, None)
    assert [hit.path for hit in canary.hits] == ["/forwarded", "/tunnelled"]
    assert trap.hits == []
    assert lookups == [1, 1]


async def test_declared_hosts_narrow_the_listener(proxy: EgressProxy, canary: EgressCanary) -> None:
    listener = await proxy.serve_tcp(policy=LOCAL, allowed_hosts=("api.test",), ports=None)
    status, code, _ = await ask(listener, get(canary.url("/")))
    assert (status, code) == (403, "not-declared")


async def test_ports_beyond_80_and_443_need_a_pattern_naming_them(
    proxy: EgressProxy, canary: EgressCanary
) -> None:
    plain = await proxy.serve_tcp(policy=LOCAL)
    named = await proxy.serve_tcp(
        policy=NetworkPolicy(allow=(f"{CANARY_HOST}:{canary.port}",), allow_private_urls=True)
    )
    assert (await ask(plain, get(canary.url("/"))))[:2] == (403, "port-not-allowed")
    assert (await ask(named, get(canary.url("/"))))[0] == 200


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"hello\r\n\r\n", 400, "malformed-request"),
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "not-a-proxy-request"),
        (b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 400, "not-a-proxy-request"),
        (b"GET http://a b/ HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed-request"),
        (b"GET http://public.test/ HTTP/1.1\r\n\r\n", 400, "malformed-request"),
        (b"GET http://public.test/ HTTP/1.1\r\nHost x\r\n\r\n", 400, "malformed-request"),
        (b"GET http://public.test/ HTTP/3.0\r\nHost: x\r\n\r\n", 400, "malformed-request"),
        (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, "malformed-request"),
        (b"GET http://1.2.3.256/ HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed-url"),
        (b"GET http://exa%00mple/ HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed-url"),
        (b"GET http://\xc3\xa9.test/ HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed-request"),
        (b"CONNECT public.test HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed-url"),
        (b"CONNECT public.test:0 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed-url"),
        (b"CONNECT a@public.test:443 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed-url"),
        (b"CONNECT /path HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed-url"),
        (
            b"POST http://public.test/ HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n",
            400,
            "malformed-request",
        ),
        (
            b"GET http://public.test/ HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 70_000,
            431,
            "header-too-large",
        ),
    ],
)
async def test_malformed_requests_get_400(
    proxy: EgressProxy, request_bytes: bytes, status: int, code: str
) -> None:
    listener = await proxy.serve_tcp(policy=NOWHERE)
    got_status, got_code, body = await ask(listener, request_bytes)
    assert (got_status, got_code) == (status, code)
    assert body.strip()


async def test_malformed_requests_never_echo_what_they_carried(
    proxy: EgressProxy, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="toolwire.egress")
    listener = await proxy.serve_tcp(policy=NOWHERE)
    answers = [
        await ask(listener, request)
        for request in (
            b"GET http://a.test/?token=SECRET1 HTTP/1.1 extra\r\nHost: x\r\n\r\n",
            b"GET http://a.test/ HTTP/1.1\r\nHost: x\r\nAuthorization Bearer SECRET2\r\n\r\n",
            b"POST http://only.invalid/ HTTP/1.1\r\nHost: x\r\nX SECRET3: v\r\n\r\n",
        )
    ]
    assert [answer[:2] for answer in answers] == [(400, "malformed-request")] * 3
    assert all(b"SECRET" not in body for _, _, body in answers)
    assert "SECRET" not in caplog.text
    assert "malformed request: illegal request line" in caplog.text


async def test_an_upstream_that_refuses_gets_502(proxy: EgressProxy) -> None:
    port = closed_port()
    listener = await proxy.serve_tcp(policy=LOCAL, ports=None)
    assert (await ask(listener, get(f"http://127.0.0.1:{port}/")))[:2] == (502, "upstream-failed")
    assert (await ask(listener, connect(f"127.0.0.1:{port}")))[:2] == (502, "upstream-failed")


async def test_an_upstream_that_hangs_up_inside_the_body_gets_502(proxy: EgressProxy) -> None:
    listener = await proxy.serve_tcp(policy=LOCAL, ports=None)
    body = b"b" * 4_000_000
    with hanging_up_server() as port:
        head = (
            f"POST http://127.0.0.1:{port}/upload HTTP/1.1\r\nHost: x\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        status, code, _ = await ask(listener, head.encode() + body)
    assert (status, code) == (502, "upstream-failed")
    assert (await ask(listener, get("http://0.0.0.0/")))[:2] == (403, "reserved-address")


async def test_an_upstream_that_never_answers_gets_504() -> None:
    limits = EgressLimits(response_timeout_s=0.5, connect_timeout_s=5)
    with silent_server() as port:
        async with EgressProxy(limits=limits) as proxy:
            listener = await proxy.serve_tcp(policy=LOCAL, ports=None)
            status, code, body = await ask(listener, get(f"http://127.0.0.1:{port}/"))
    assert (status, code) == (504, "upstream-timeout")
    assert b"did not answer in time" in body


async def test_a_stalled_request_head_gets_408_and_an_idle_client_is_closed() -> None:
    async with EgressProxy(limits=EgressLimits(idle_timeout_s=0.3)) as proxy:
        listener = await proxy.serve_tcp(policy=OPEN)
        assert listener.address is not None
        async with await anyio.connect_tcp(*listener.address) as partial:
            await partial.send(b"GET http://public.test/ HTTP/1.1\r\nHo")
            answer = await partial.receive()
        async with await anyio.connect_tcp(*listener.address) as silent:
            with pytest.raises(anyio.EndOfStream):
                await silent.receive()
    assert status_and_code(answer) == (408, "request-timeout")


async def test_connections_beyond_the_limit_get_503(proxy: EgressProxy) -> None:
    async with EgressProxy(limits=EgressLimits(max_connections=1)) as limited:
        listener = await limited.serve_tcp(policy=OPEN)
        assert listener.address is not None
        async with await anyio.connect_tcp(*listener.address) as first:
            await first.send(b"GET http://public.test/ HTTP/1.1\r\n")  # holds the only slot
            await anyio.wait_all_tasks_blocked()
            status, code, _ = await ask(listener, get("http://10.0.0.1/"))
        assert (status, code) == (503, "too-many-connections")
        await anyio.wait_all_tasks_blocked()
        assert (await ask(listener, get("http://10.0.0.1/")))[:2] == (403, "private-address")


async def test_misuse_raises_configuration_errors(proxy: EgressProxy) -> None:
    with pytest.raises(ConfigurationError, match="not a loopback address"):
        await proxy.serve_tcp("0.0.0.0")
    with pytest.raises(ConfigurationError, match="must be a NetworkPolicy"):
        await proxy.serve_tcp(policy={"allow": []})  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="not running"):
        await EgressProxy().serve_tcp()
    with pytest.raises(ConfigurationError, match="idle_timeout_s=0"):
        EgressLimits(idle_timeout_s=0)


def test_without_the_web_extra_the_import_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['h11'] = None\n"
        "try:\n"
        "    import toolwire.capabilities.kinds.process.sandbox.egress\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == (
        "ConfigurationError the egress proxy needs h11: pip install 'toolwire[web]'"
    )
