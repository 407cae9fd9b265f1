"""HostScopedFetch: the tool's declared hosts first, then the policy floor, on every hop."""

from __future__ import annotations

import pytest
from network_servers import RunningServer

from toolwire.capabilities.kinds.network import HostScopedFetch, SafeFetcher, StaticResolver
from toolwire.capabilities.seams import NetworkPolicy, ScopedFetch
from toolwire.errors import HostNotAllowedError

pytestmark = pytest.mark.anyio


def scoped(
    fetcher: SafeFetcher, *hosts: str, policy: NetworkPolicy | None = None
) -> HostScopedFetch:
    return HostScopedFetch(fetcher, hosts, policy or NetworkPolicy(allow_private_urls=True))


async def test_host_scoped_fetch_implements_the_scoped_fetch_seam(fetcher: SafeFetcher) -> None:
    assert isinstance(scoped(fetcher, "a.test"), ScopedFetch)


async def test_a_declared_host_is_fetched(fetcher: SafeFetcher, server: RunningServer) -> None:
    response = await scoped(fetcher, "a.test").fetch(server.url("a.test", "/hello"))
    assert response.text == f"hello from a.test:{server.port}"


async def test_an_undeclared_host_is_refused_before_any_lookup(
    server: RunningServer, resolver: StaticResolver
) -> None:
    requests_before = len(server.log)
    async with SafeFetcher(resolver=resolver) as fetcher:
        with pytest.raises(HostNotAllowedError) as refused:
            await scoped(fetcher, "a.test").fetch(server.url("B.test.", "/hello"))
    assert str(refused.value) == "HOST_NOT_ALLOWED: b.test is not in the declared allowed_hosts"
    assert len(server.log) == requests_before


async def test_star_reaches_any_host(fetcher: SafeFetcher, server: RunningServer) -> None:
    response = await scoped(fetcher, "*").fetch(server.url("b.test", "/hello"))
    assert response.status == 200


async def test_subdomain_wildcard_matches_subdomains_but_not_the_apex(
    fetcher: SafeFetcher, server: RunningServer
) -> None:
    seam = scoped(fetcher, "*.github.test")
    assert (await seam.fetch(server.url("api.github.test", "/hello"))).status == 200
    with pytest.raises(HostNotAllowedError, match="not in the declared allowed_hosts"):
        await seam.fetch(server.url("github.test", "/hello"))


async def test_an_empty_declaration_reaches_nothing(
    fetcher: SafeFetcher, server: RunningServer
) -> None:
    with pytest.raises(HostNotAllowedError):
        await scoped(fetcher).fetch(server.url("a.test", "/hello"))


async def test_a_redirect_to_an_undeclared_host_is_refused(
    fetcher: SafeFetcher, server: RunningServer
) -> None:
    start = server.redirect("a.test", server.url("b.test", "/"))
    with pytest.raises(HostNotAllowedError, match=r"b\.test is not in the declared allowed_hosts"):
        await scoped(fetcher, "a.test").fetch(start)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "cloud-metadata"),
        ("http://meta.test/", "cloud-metadata"),
        ("http://inside.test/", "private/reserved"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("http://10.0.0.7/", "private/reserved"),
    ],
)
async def test_the_policy_floor_applies_even_to_star(url: str, reason: str) -> None:
    resolver = StaticResolver({"meta.test": ["169.254.169.254"], "inside.test": ["10.0.0.7"]})
    async with SafeFetcher(resolver=resolver) as fetcher:
        with pytest.raises(HostNotAllowedError, match=reason):
            await scoped(fetcher, "*", policy=NetworkPolicy()).fetch(url)


async def test_the_personality_deny_list_applies_to_declared_hosts(
    fetcher: SafeFetcher, server: RunningServer
) -> None:
    policy = NetworkPolicy(allow_private_urls=True, deny=("a.test",))
    with pytest.raises(HostNotAllowedError, match="deny list"):
        await scoped(fetcher, "a.test", policy=policy).fetch(server.url("a.test", "/"))
