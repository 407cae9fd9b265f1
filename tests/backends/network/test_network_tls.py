"""TLS through the pinned transport: SNI and certificate checks use the URL's host name."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from network_servers import Certificates, RunningServer, make_certificates, run_server

from toolwire.capabilities.kinds.network import SafeFetcher, StaticResolver
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import HostNotAllowedError

pytestmark = pytest.mark.anyio
LOCAL = NetworkPolicy(allow_private_urls=True)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(Path(tmp_path_factory.mktemp("tls")), "secure.test")


@pytest.fixture(scope="module")
def sni_names() -> list[str | None]:
    return []


@pytest.fixture(scope="module")
def tls_server(certificates: Certificates, sni_names: list[str | None]) -> Iterator[RunningServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates.cert_file, certificates.key_file)
    context.sni_callback = lambda _sock, name, _ctx: sni_names.append(name)
    with run_server(context) as running:
        yield running


def client_context(certificates: Certificates) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(certificates.ca_file))


RESOLVER = StaticResolver({"secure.test": ["127.0.0.1"], "impostor.test": ["127.0.0.1"]})


async def test_tls_verifies_the_url_host_while_connecting_to_the_pinned_address(
    tls_server: RunningServer, certificates: Certificates, sni_names: list[str | None]
) -> None:
    ssl_context = client_context(certificates)
    async with SafeFetcher(resolver=RESOLVER, ssl_context=ssl_context, timeout_s=5) as fetcher:
        response = await fetcher.fetch(tls_server.url("secure.test", "/hello"), policy=LOCAL)
    assert response.text == f"hello from secure.test:{tls_server.port}"
    assert "secure.test" in sni_names


async def test_tls_refuses_a_certificate_for_another_name(
    tls_server: RunningServer, certificates: Certificates
) -> None:
    ssl_context = client_context(certificates)
    async with SafeFetcher(resolver=RESOLVER, ssl_context=ssl_context, timeout_s=5) as fetcher:
        with pytest.raises(OSError, match="CERTIFICATE_VERIFY_FAILED") as failed:
            await fetcher.fetch(tls_server.url("impostor.test", "/hello"), policy=LOCAL)
    assert not isinstance(failed.value, HostNotAllowedError)
