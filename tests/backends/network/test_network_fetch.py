"""SafeFetcher against real servers on 127.0.0.1: pinning, redirects, caps, timeouts."""

from __future__ import annotations

import json

import httpx
import pytest
from network_servers import RebindingResolver, RunningServer, closed_port

from toolwire.capabilities.kinds.network import SafeFetcher, StaticResolver
from toolwire.capabilities.kinds.network._transport import PINNED_ADDRESSES, PinnedTransport
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import ConfigurationError, HostNotAllowedError

pytestmark = pytest.mark.anyio


async def test_fetch_returns_status_body_headers_and_final_url(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    response = await fetcher.fetch(server.url("127.0.0.1", "/hello"), policy=local)
    assert response.status == 200
    assert response.text == f"hello from 127.0.0.1:{server.port}"
    assert response.headers["content-length"] == str(len(response.body))
    assert response.url == server.url("127.0.0.1", "/hello")
    assert (response.hops, response.truncated) == (0, False)


async def test_loopback_server_is_refused_without_private_opt_in(
    fetcher: SafeFetcher, server: RunningServer
) -> None:
    requests_before = len(server.log)
    with pytest.raises(HostNotAllowedError, match="private/reserved range"):
        await fetcher.fetch(server.url("127.0.0.1", "/hello"))
    assert len(server.log) == requests_before


async def test_connection_goes_to_the_validated_address_when_dns_rebinds(
    server: RunningServer, local: NetworkPolicy
) -> None:
    # A second lookup would answer 127.0.0.2, where nothing listens on this port.
    rebinding = RebindingResolver(first=["127.0.0.1"], later=["127.0.0.2"])
    async with SafeFetcher(resolver=rebinding, timeout_s=5.0) as fetcher:
        response = await fetcher.fetch(server.url("rebind.test", "/hello"), policy=local)
    assert response.text == f"hello from rebind.test:{server.port}"
    assert rebinding.lookups == ["rebind.test"]


async def test_request_carries_original_host_header_and_ignores_a_caller_host(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    response = await fetcher.fetch(
        server.url("a.test", "/echo"), policy=local, headers={"Host": "internal.example"}
    )
    seen = json.loads(response.body)
    assert seen["headers"]["host"] == f"a.test:{server.port}"
    assert seen["headers"]["user-agent"] == "toolwire"


async def test_redirects_across_hosts_are_followed_and_counted(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    final = server.url("b.test", "/hello")
    start = server.redirect("a.test", server.redirect("h1.test", final))
    response = await fetcher.fetch(start, policy=local)
    assert (response.status, response.hops, response.url) == (200, 2, final)
    assert response.text == f"hello from b.test:{server.port}"


async def test_five_redirects_succeed_with_the_default_limit(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    response = await fetcher.fetch(server.url("h5.test", "/chain/5"), policy=local)
    assert (response.text, response.hops) == ("end of chain", 5)


async def test_six_redirects_are_refused_as_too_many_hops(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    with pytest.raises(HostNotAllowedError, match=r"too many redirect hops \(max 5\)"):
        await fetcher.fetch(server.url("h6.test", "/chain/6"), policy=local)


async def test_redirect_limit_is_configurable(
    resolver: StaticResolver, server: RunningServer, local: NetworkPolicy
) -> None:
    async with SafeFetcher(resolver=resolver, max_redirects=1) as fetcher:
        with pytest.raises(HostNotAllowedError, match=r"\(max 1\)"):
            await fetcher.fetch(server.url("h2.test", "/chain/2"), policy=local)


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "cloud-metadata"),
        ("http://metadata.google.internal/computeMetadata/v1/", "cloud-metadata"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("http://user:secret@b.test/", "embedded credentials"),
        ("http://unknown.test/", "could not be resolved"),
        ("http://evil.test/", "deny list"),
    ],
)
async def test_every_redirect_hop_is_revalidated(
    fetcher: SafeFetcher, server: RunningServer, target: str, reason: str
) -> None:
    policy = NetworkPolicy(allow_private_urls=True, deny=("evil.test",))
    with pytest.raises(HostNotAllowedError, match=reason) as refused:
        await fetcher.fetch(server.redirect("a.test", target), policy=policy)
    assert str(refused.value).startswith("HOST_NOT_ALLOWED:")
    assert str(refused.value).endswith("(at redirect hop 1)")


async def test_credentials_are_dropped_when_a_redirect_leaves_the_origin(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    secret_headers = {
        "Authorization": "Bearer t",
        "Cookie": "s=1",
        "Proxy-Authorization": "Basic x",
        "X-Trace": "keep",
    }
    start = server.redirect("a.test", server.url("b.test", "/echo"))
    response = await fetcher.fetch(start, policy=local, headers=secret_headers)
    seen = json.loads(response.body)["headers"]
    assert "authorization" not in seen
    assert "cookie" not in seen
    assert "proxy-authorization" not in seen
    assert seen["x-trace"] == "keep"


async def test_credentials_are_kept_on_a_same_origin_redirect(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    start = server.redirect("a.test", server.url("a.test", "/echo"))
    response = await fetcher.fetch(start, policy=local, headers={"Authorization": "Bearer t"})
    assert json.loads(response.body)["headers"]["authorization"] == "Bearer t"


async def test_another_port_is_another_origin_for_credentials(
    fetcher: SafeFetcher, server: RunningServer, other_server: RunningServer, local: NetworkPolicy
) -> None:
    start = server.redirect("a.test", other_server.url("a.test", "/echo"))
    response = await fetcher.fetch(start, policy=local, headers={"Cookie": "s=1"})
    assert "cookie" not in json.loads(response.body)["headers"]


async def test_credentials_stay_dropped_after_returning_to_the_first_origin(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    back_home = server.redirect("b.test", server.url("a.test", "/echo"))
    start = server.redirect("a.test", back_home)
    response = await fetcher.fetch(start, policy=local, headers={"Authorization": "Bearer t"})
    assert "authorization" not in json.loads(response.body)["headers"]


async def test_303_turns_a_post_into_a_get_without_body(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    start = server.redirect("a.test", server.url("a.test", "/echo"), status=303)
    response = await fetcher.fetch(
        start, policy=local, method="PUT", body="payload", headers={"Content-Type": "text/plain"}
    )
    seen = json.loads(response.body)
    assert (seen["method"], seen["body"]) == ("GET", "")
    assert "content-type" not in seen["headers"]


@pytest.mark.parametrize("status", [301, 302])
async def test_301_and_302_turn_a_post_into_a_get(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy, status: int
) -> None:
    start = server.redirect("a.test", server.url("a.test", "/echo"), status=status)
    response = await fetcher.fetch(start, policy=local, method="POST", body=b"payload")
    seen = json.loads(response.body)
    assert (seen["method"], seen["body"]) == ("GET", "")


@pytest.mark.parametrize("status", [307, 308])
async def test_307_and_308_keep_the_method_and_body(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy, status: int
) -> None:
    start = server.redirect("a.test", server.url("a.test", "/echo"), status=status)
    response = await fetcher.fetch(start, policy=local, method="POST", body="payload")
    seen = json.loads(response.body)
    assert (seen["method"], seen["body"]) == ("POST", "payload")


async def test_a_redirect_without_location_is_returned_as_is(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    response = await fetcher.fetch(server.url("a.test", "/no-location"), policy=local)
    assert (response.status, response.text, response.hops) == (302, "nowhere", 0)


async def test_body_is_cut_at_the_size_cap_and_marked_truncated(
    resolver: StaticResolver, server: RunningServer, local: NetworkPolicy
) -> None:
    async with SafeFetcher(resolver=resolver, max_response_bytes=1000) as fetcher:
        response = await fetcher.fetch(server.url("a.test", "/big?n=200000"), policy=local)
    assert (len(response.body), response.truncated) == (1000, True)


async def test_body_exactly_at_the_cap_is_not_truncated(
    resolver: StaticResolver, server: RunningServer, local: NetworkPolicy
) -> None:
    async with SafeFetcher(resolver=resolver, max_response_bytes=1000) as fetcher:
        response = await fetcher.fetch(server.url("a.test", "/big?n=1000"), policy=local)
    assert (len(response.body), response.truncated) == (1000, False)


async def test_gzip_bodies_are_decoded(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    response = await fetcher.fetch(server.url("a.test", "/gzip"), policy=local)
    assert response.body == b"unzipped " * 100


async def test_a_slow_server_raises_timeout_error(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    with pytest.raises(TimeoutError, match=r"timed out after 0\.2s"):
        await fetcher.fetch(server.url("a.test", "/slow"), policy=local, timeout_s=0.2)


async def test_connection_refused_is_an_os_error_not_a_policy_refusal(
    fetcher: SafeFetcher, local: NetworkPolicy
) -> None:
    with pytest.raises(OSError, match="failed") as failed:
        await fetcher.fetch(f"http://a.test:{closed_port()}/", policy=local)
    assert not isinstance(failed.value, HostNotAllowedError)


async def test_unknown_methods_are_rejected(fetcher: SafeFetcher, server: RunningServer) -> None:
    with pytest.raises(ValueError, match="method must be one of"):
        await fetcher.fetch(server.url("a.test", "/"), method="CONNECT")


async def test_fetcher_reconnects_after_aclose(
    fetcher: SafeFetcher, server: RunningServer, local: NetworkPolicy
) -> None:
    await fetcher.fetch(server.url("a.test", "/hello"), policy=local)
    await fetcher.aclose()
    response = await fetcher.fetch(server.url("a.test", "/hello"), policy=local)
    assert response.status == 200


async def test_transport_refuses_a_request_without_pinned_addresses() -> None:
    transport = PinnedTransport(ssl_context=httpx.create_ssl_context())
    with pytest.raises(HostNotAllowedError, match="no validated address"):
        await transport.handle_async_request(httpx.Request("GET", "http://127.0.0.1:1/"))


def test_negative_limits_are_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="max_redirects"):
        SafeFetcher(max_redirects=-1)


async def test_pool_eviction_never_closes_a_response_still_being_read(
    server: RunningServer,
) -> None:
    transport = PinnedTransport(ssl_context=httpx.create_ssl_context(), max_pools=1)
    url = server.url("127.0.0.1", "/big?n=300000")

    def pinned(*addresses: str) -> httpx.Request:
        return httpx.Request("GET", url, extensions={PINNED_ADDRESSES: addresses})

    first = await transport.handle_async_request(pinned("127.0.0.1"))
    second = await transport.handle_async_request(pinned("127.0.0.1", "127.0.0.2"))
    third = await transport.handle_async_request(pinned("127.0.0.1"))
    bodies = [len(await response.aread()) for response in (first, second, third)]
    for response in (first, second, third):
        await response.aclose()
    await transport.aclose()
    assert bodies == [300000, 300000, 300000]
