"""The egress proxy lets allowed requests through: real clients, real sockets, both backends."""

from __future__ import annotations

import json
import logging
import ssl
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from egress_helpers import (
    CANARY_HOST,
    TLS_CANARY_HOST,
    EgressCanary,
    echo_server,
    exchange,
    make_tls,
    require_command,
    running_canary,
    serve_canary,
    status_and_code,
)

from toolwire.capabilities.kinds.network import StaticResolver
from toolwire.capabilities.kinds.process.sandbox.egress import EgressListener, EgressProxy
from toolwire.capabilities.seams import NetworkPolicy

pytestmark = pytest.mark.anyio

LOCAL = NetworkPolicy(allow_private_urls=True)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """The proxy runs on both of anyio's backends."""
    return str(request.param)


@pytest.fixture
def canary() -> Iterator[EgressCanary]:
    with running_canary() as running:
        yield running


@pytest.fixture
async def proxy(canary: EgressCanary) -> AsyncIterator[EgressProxy]:
    async with EgressProxy(canary.resolver) as running:
        yield running


@pytest.fixture
async def listener(proxy: EgressProxy, canary: EgressCanary) -> EgressListener:
    return await proxy.serve_tcp(policy=canary.policy)


def proxy_url(listener: EgressListener) -> str:
    assert listener.address is not None
    return f"http://{listener.address[0]}:{listener.address[1]}"


async def test_httpx_fetches_an_allowed_host_through_the_proxy(
    listener: EgressListener, canary: EgressCanary
) -> None:
    async with httpx.AsyncClient(proxy=proxy_url(listener), trust_env=False) as client:
        response = await client.get(canary.url("/hello"))
    assert response.status_code == 200
    assert response.text == f"canary {CANARY_HOST}:{canary.port} /hello"
    assert [hit.path for hit in canary.hits] == ["/hello"]


async def test_hop_by_hop_headers_stop_at_the_proxy(
    listener: EgressListener, canary: EgressCanary
) -> None:
    headers = {
        "Connection": "keep-alive, X-Private",
        "X-Private": "only for the proxy",
        "Proxy-Authorization": "Basic c2VjcmV0",
        "X-End-To-End": "kept",
    }
    async with httpx.AsyncClient(proxy=proxy_url(listener), trust_env=False) as client:
        response = await client.get(canary.url("/echo"), headers=headers)
    seen = json.loads(response.text)["headers"]
    assert seen["x-end-to-end"] == "kept"
    assert seen["host"] == f"{CANARY_HOST}:{canary.port}"
    assert not {"x-private", "proxy-authorization", "proxy-connection"} & set(seen)
    assert response.headers["x-canary"] == "yes"


async def test_request_bodies_are_forwarded_with_a_length_or_chunked(
    listener: EgressListener, canary: EgressCanary
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for part in (b"one ", b"two ", b"three"):
            yield part

    async with httpx.AsyncClient(proxy=proxy_url(listener), trust_env=False) as client:
        sized = await client.post(canary.url("/echo"), content=b"x" * 100_000)
        streamed = await client.put(canary.url("/echo"), content=chunks())
    assert json.loads(sized.text)["body"] == "x" * 100_000
    assert json.loads(streamed.text)["body"] == "one two three"
    assert json.loads(streamed.text)["method"] == "PUT"


async def test_a_large_response_is_relayed_whole(
    listener: EgressListener, canary: EgressCanary
) -> None:
    async with httpx.AsyncClient(proxy=proxy_url(listener), trust_env=False) as client:
        response = await client.get(canary.url("/big?n=3000000"))
        head = await client.head(canary.url("/big?n=10"))
    assert len(response.content) == 3_000_000
    assert head.status_code == 200
    assert head.headers["content-length"] == "10"


async def test_one_connection_serves_requests_one_after_another(
    listener: EgressListener, canary: EgressCanary
) -> None:
    assert listener.address is not None
    one = f"GET {canary.url('/one')} HTTP/1.1\r\nHost: {CANARY_HOST}\r\n\r\n"
    two = f"GET {canary.url('/two')} HTTP/1.1\r\nHost: {CANARY_HOST}\r\nConnection: close\r\n\r\n"
    answer = await exchange(listener.address, (one + two).encode())
    assert answer.count(b"HTTP/1.1 200 OK") == 2
    assert [hit.path for hit in canary.hits] == ["/one", "/two"]


async def test_a_client_waiting_for_100_continue_is_told_to_go_on(
    listener: EgressListener, canary: EgressCanary
) -> None:
    assert listener.address is not None
    stream = await anyio.connect_tcp(*listener.address)
    async with stream:
        head = (
            f"POST {canary.url('/echo')} HTTP/1.1\r\nHost: {CANARY_HOST}\r\n"
            "Content-Length: 4\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
        )
        await stream.send(head.encode())
        assert (await stream.receive()).startswith(b"HTTP/1.1 100 ")
        await stream.send(b"body")
        answer = b""
        try:
            while True:
                answer += await stream.receive()
        except anyio.EndOfStream:
            pass
    assert status_and_code(answer) == (200, None)
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["body"] == "body"
    assert "expect" not in canary.hits[0].headers


async def test_connect_tunnels_tls_end_to_end_without_interception(
    proxy: EgressProxy, tmp_path: Path
) -> None:
    tls = make_tls(tmp_path, TLS_CANARY_HOST)
    with serve_canary(tls.server_context) as server:
        port = int(server.server_address[1])
        resolver = StaticResolver({TLS_CANARY_HOST: ["127.0.0.1"]})
        async with EgressProxy(resolver) as own:
            policy = NetworkPolicy(allow=(f"{TLS_CANARY_HOST}:{port}",), allow_private_urls=True)
            listener = await own.serve_tcp(policy=policy)
            async with httpx.AsyncClient(
                proxy=proxy_url(listener), verify=tls.client_context(), trust_env=False
            ) as client:
                response = await client.get(f"https://{TLS_CANARY_HOST}:{port}/secure")
    assert response.status_code == 200
    assert response.text == f"canary {TLS_CANARY_HOST}:{port} /secure"


async def test_connect_relays_both_ways_and_respects_half_close(
    proxy: EgressProxy, canary: EgressCanary
) -> None:
    with echo_server() as (port, received):
        policy = NetworkPolicy(allow=(f"{CANARY_HOST}:{port}",), allow_private_urls=True)
        listener = await proxy.serve_tcp(policy=policy)
        assert listener.address is not None
        request = f"CONNECT {CANARY_HOST}:{port} HTTP/1.1\r\nHost: {CANARY_HOST}:{port}\r\n\r\n"
        payload = bytes(range(256)) * 2000
        answer = await exchange(listener.address, request.encode() + payload)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    assert body == b"echo:" + payload  # the echo server answered only after our end of data
    assert received == [payload]


async def test_a_unix_listener_serves_under_its_own_policy(
    proxy: EgressProxy, canary: EgressCanary, tmp_path: Path
) -> None:
    path = str(tmp_path / "egress.sock")
    unix = await proxy.serve_unix(path, canary.policy)
    closed = await proxy.serve_tcp(policy=NetworkPolicy(allow=("elsewhere.test",)))
    request = f"GET {canary.url('/via-unix')} HTTP/1.1\r\nHost: {CANARY_HOST}\r\n\r\n"
    assert closed.address is not None
    allowed = await exchange(path, request.encode())
    refused = await exchange(closed.address, request.encode())
    assert unix.path == path
    assert await anyio.Path(path).is_socket()
    assert status_and_code(allowed) == (200, None)
    assert status_and_code(refused) == (403, "not-on-allow-list")
    await unix.aclose()
    assert unix.closed
    assert not await anyio.Path(path).exists()
    assert proxy.listeners == (closed,)


async def test_closing_a_listener_ends_its_open_tunnels(
    proxy: EgressProxy, canary: EgressCanary
) -> None:
    with echo_server() as (port, _):
        policy = NetworkPolicy(allow=(f"{CANARY_HOST}:{port}",), allow_private_urls=True)
        listener = await proxy.serve_tcp(policy=policy)
        assert listener.address is not None
        stream = await anyio.connect_tcp(*listener.address)
        async with stream:
            await stream.send(f"CONNECT {CANARY_HOST}:{port} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert (await stream.receive()).startswith(b"HTTP/1.1 200 ")
            await listener.aclose()
            with pytest.raises((anyio.EndOfStream, anyio.BrokenResourceError)):
                await stream.receive()


async def test_decisions_are_logged_without_paths_or_queries(
    listener: EgressListener, canary: EgressCanary, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="toolwire.egress")
    async with httpx.AsyncClient(proxy=proxy_url(listener), trust_env=False) as client:
        await client.get(canary.url("/private/path?token=SECRET123"))
        await client.get("http://metadata.google.internal/computeMetadata/v1/?token=SECRET456")
    lines = [r.getMessage() for r in caplog.records if r.name == "toolwire.egress"]
    assert any(f"allowed GET {CANARY_HOST}:{canary.port}" in line for line in lines)
    assert any("refused GET metadata.google.internal:80 metadata" in line for line in lines)
    assert len(lines) == 2
    assert "SECRET" not in caplog.text
    assert "/private/path" not in caplog.text


async def test_curl_fetches_through_the_proxy_plain_and_tunnelled(
    listener: EgressListener, canary: EgressCanary
) -> None:
    curl = require_command("curl")
    proxy = proxy_url(listener)
    plain = await anyio.run_process([curl, "-sS", "-x", proxy, canary.url("/plain")])
    tunnelled = await anyio.run_process([curl, "-sS", "-p", "-x", proxy, canary.url("/tunnel")])
    refused = await anyio.run_process(
        [curl, "-sS", "-i", "-x", proxy, "http://169.254.169.254/latest/meta-data/"]
    )
    assert plain.stdout.decode() == f"canary {CANARY_HOST}:{canary.port} /plain"
    assert tunnelled.stdout.decode() == f"canary {CANARY_HOST}:{canary.port} /tunnel"
    assert status_and_code(refused.stdout) == (403, "metadata")


async def test_curl_reaches_a_tls_host_through_connect(tmp_path: Path) -> None:
    curl = require_command("curl")
    tls = make_tls(tmp_path, TLS_CANARY_HOST)
    with serve_canary(tls.server_context) as server:
        port = int(server.server_address[1])
        async with EgressProxy(StaticResolver({TLS_CANARY_HOST: ["127.0.0.1"]})) as proxy:
            policy = NetworkPolicy(allow=(f"{TLS_CANARY_HOST}:{port}",), allow_private_urls=True)
            listener = await proxy.serve_tcp(policy=policy)
            result = await anyio.run_process(
                [
                    curl,
                    "-sS",
                    "--cacert",
                    str(tls.ca_file),
                    "-x",
                    proxy_url(listener),
                    f"https://{TLS_CANARY_HOST}:{port}/tls",
                ]
            )
    assert result.stdout.decode() == f"canary {TLS_CANARY_HOST}:{port} /tls"


async def test_absolute_form_https_is_fetched_by_the_proxy_with_verification(
    tmp_path: Path,
) -> None:
    tls = make_tls(tmp_path, TLS_CANARY_HOST)
    with serve_canary(tls.server_context) as server:
        port = int(server.server_address[1])
        resolver = StaticResolver({TLS_CANARY_HOST: ["127.0.0.1"]})
        request = f"GET https://{TLS_CANARY_HOST}:{port}/x HTTP/1.1\r\nHost: a\r\n\r\n".encode()
        async with EgressProxy(resolver, ssl_context=tls.client_context()) as trusting:
            listener = await trusting.serve_tcp(policy=LOCAL, ports=None)
            assert listener.address is not None
            trusted = await exchange(listener.address, request)
        async with EgressProxy(resolver, ssl_context=ssl.create_default_context()) as strict:
            listener = await strict.serve_tcp(policy=LOCAL, ports=None)
            assert listener.address is not None
            untrusted = await exchange(listener.address, request)
    assert status_and_code(trusted) == (200, None)
    assert status_and_code(untrusted) == (502, "upstream-failed")


async def test_leaving_the_proxy_closes_everything_and_an_error_passes_through_as_is() -> None:
    proxy = EgressProxy()
    listeners: list[EgressListener] = []

    async def fail_inside() -> None:
        async with proxy:
            listeners.append(await proxy.serve_tcp(policy=NetworkPolicy()))
            raise KeyError("from the block")

    with pytest.raises(KeyError, match="from the block"):
        await fail_inside()
    (listener,) = listeners
    assert listener.closed
    assert proxy.listeners == ()
    assert listener.address is not None
    with pytest.raises(OSError):
        await anyio.connect_tcp(*listener.address)
