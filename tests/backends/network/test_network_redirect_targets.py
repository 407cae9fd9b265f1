"""A redirect's Location is resolved as browsers resolve it, then re-validated."""

from __future__ import annotations

import pytest
from network_servers import RunningServer

from toolwire.capabilities.kinds.network import SafeFetcher
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import HostNotAllowedError

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "location",
    [
        "/\\b.test:{port}/hello",
        "\\\\b.test:{port}\\hello",
        "http:\\\\b.test:{port}\\hello",
        "/\t/b.test:{port}/hello",
    ],
)
async def test_a_location_spelled_with_backslashes_or_tabs_goes_where_browsers_go(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy, location: str
) -> None:
    start = server.redirect("a.test", location.format(port=server.port))
    response = await fetcher.fetch(start, policy=local)
    assert response.text == f"hello from b.test:{server.port}"
    assert (response.url, response.hops) == (server.url("b.test", "/hello"), 1)


@pytest.mark.parametrize(
    ("location", "host"),
    [("/\\evil.test/", "evil.test"), ("http:\\\\127.0.0.1:{port}\\x", "127.0.0.1")],
)
async def test_a_backslash_location_to_an_undeclared_host_is_refused(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy, location: str, host: str
) -> None:
    requests_before = len(server.log)
    start = server.redirect("a.test", location.format(port=server.port))
    with pytest.raises(HostNotAllowedError) as refused:
        await fetcher.fetch(start, policy=local, allowed_hosts=("a.test",))
    assert str(refused.value) == (
        f"HOST_NOT_ALLOWED: {host} is not in the declared allowed_hosts (at redirect hop 1)"
    )
    assert len(server.log) == requests_before + 1  # only the redirect itself was requested


@pytest.mark.parametrize("location", ["http://[::1/", "http://a b.test/", "http://1.2.3.256/"])
async def test_an_unparseable_location_is_a_refusal_at_its_hop(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy, location: str
) -> None:
    with pytest.raises(HostNotAllowedError, match="malformed redirect Location") as refused:
        await fetcher.fetch(server.redirect("a.test", location), policy=local)
    assert str(refused.value).endswith("(at redirect hop 1)")


async def test_a_url_with_a_port_of_thousands_of_digits_is_a_refusal(
    fetcher: SafeFetcher, local: NetworkPolicy
) -> None:
    with pytest.raises(HostNotAllowedError, match="port of 5000 digits is out of range"):
        await fetcher.fetch("http://a.test:" + "9" * 5000 + "/", policy=local)


async def test_a_url_the_http_client_cannot_send_is_a_refusal(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    requests_before = len(server.log)
    with pytest.raises(HostNotAllowedError, match="URL too long") as refused:
        await fetcher.fetch(server.url("a.test", "/" + "a" * 70_000), policy=local)
    assert "aaaa" not in str(refused.value)
    assert len(server.log) == requests_before
