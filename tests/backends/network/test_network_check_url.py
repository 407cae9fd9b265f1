"""check_url: syntax, canonical hosts, metadata, private ranges, DNS — without fetching."""

from __future__ import annotations

import pytest

from toolwire.capabilities.kinds.network import Resolver, StaticResolver, check_url, parse_url
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import HostNotAllowedError

pytestmark = pytest.mark.anyio

NO_DNS = StaticResolver({})
OPEN = NetworkPolicy()
PRIVATE_OK = NetworkPolicy(allow_private_urls=True)


async def refused(url: str, policy: NetworkPolicy = OPEN, resolver: Resolver = NO_DNS) -> str:
    with pytest.raises(HostNotAllowedError) as refusal:
        await check_url(url, policy, resolver)
    message = str(refusal.value)
    assert message.startswith("HOST_NOT_ALLOWED: ")
    return message


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://2130706433/", "127.0.0.1"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://0x7f000001/", "127.0.0.1"),
        ("http://0X7F.0x0.0.01/", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://127.0.1/", "127.0.0.1"),
        ("http://127.0.0.1./", "127.0.0.1"),
        ("http://%31%32%37.0.0.1/", "127.0.0.1"),
        ("http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "127.0.0.1"),
        ("http://0xa9fea9fe/", "169.254.169.254"),
        ("http://[::FFFF:127.0.0.1]/", "::ffff:7f00:1"),
        ("http://[0:0:0:0:0:ffff:7f00:1]/", "::ffff:7f00:1"),
        ("http://EXAMPLE.com./path", "example.com"),
        ("http://b\u00fccher.example/", "xn--bcher-kva.example"),
    ],
)
def test_hosts_are_canonicalised_like_browsers_do(url: str, host: str) -> None:
    assert parse_url(url).host == host


def test_canonical_url_drops_default_port_and_fragment_and_keeps_query() -> None:
    assert parse_url("HTTPS://Example.COM:443/a/b?x=1#frag").url == "https://example.com/a/b?x=1"


@pytest.mark.parametrize(
    "url",
    [
        "",
        "not a url",
        "http://",
        "http:///path",
        "http:example.com",
        "//example.com/",
        "http://exa mple.com/",
        "http://example.com\t/",
        "http://[::1/",
        "http://[fe80::1%25eth0]/",
        "http://[127.0.0.1]/",
        "http://1.2.3.256/",
        "http://1.2.3.4.5/",
        "http://example.1/",
        "http://0x1g.0.0.1/",
        "http://a..b.com/",
        "http://exa%zzmple.com/",
        "http://exa<mple.com/",
        "http://example.com:99999/",
        "http://example.com:0/",
        "http://example.com:-1/",
        "http://example.com:8x/",
        "http://evil.example\\@good.example/",
    ],
)
async def test_malformed_urls_are_refused(url: str) -> None:
    await refused(url)


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/", "gopher://x/", "javascript:alert(1)"]
)
async def test_non_http_schemes_are_refused(url: str) -> None:
    assert "only http and https" in await refused(url)


@pytest.mark.parametrize(
    "url", ["http://user:pw@example.com/", "http://user@example.com/", "https://:pw@example.com/"]
)
async def test_urls_with_credentials_are_refused(url: str) -> None:
    assert "embedded credentials" in await refused(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://[::1]/",
        "http://[::]/",
        "http://0.0.0.0/",
        "http://10.0.0.5/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://169.254.1.1/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://255.255.255.255/",
        "http://198.18.0.1/",
        "http://192.0.2.1/",
        "http://[fc00::1]/",
        "http://[fd12:3456::1]/",
        "http://[fe80::1]/",
        "http://[fec0::1]/",
        "http://[ff02::1]/",
        "http://[2001:db8::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[::ffff:c0a8:101]/",
        "http://[::127.0.0.1]/",
        "http://[2002:7f00:1::]/",
        "http://[2002:a00:1::1]/",
        "http://[64:ff9b::a00:1]/",
        "http://[64:ff9b::127.0.0.1]/",
        "http://localhost/",
        "http://LOCALHOST./",
        "http://api.localhost/",
    ],
)
async def test_private_and_reserved_addresses_are_refused_by_default(url: str) -> None:
    assert "private/reserved range" in await refused(url)


@pytest.mark.parametrize(
    "url", ["http://10.0.0.5/", "http://[fd12::1]/", "http://0x7f.1/", "http://[::ffff:c0a8:101]/"]
)
async def test_private_addresses_pass_with_the_private_opt_in(url: str) -> None:
    checked = await check_url(url, PRIVATE_OK, NO_DNS)
    assert checked.addresses == (checked.parsed.host,)


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://0xa9fea9fe/",
        "http://2852039166/",
        "http://[::ffff:169.254.169.254]/",
        "http://[fd00:ec2::254]/",
        "http://100.100.100.200/",
        "http://168.63.129.16/",
        "http://169.254.170.2/",
        "http://metadata.google.internal/",
        "http://METADATA.GOOGLE.INTERNAL./",
        "http://metadata.goog/",
        "http://metadata/",
        "http://metadata.azure.com/",
    ],
)
async def test_cloud_metadata_is_refused_even_with_the_private_opt_in(url: str) -> None:
    assert "cloud-metadata" in await refused(url, PRIVATE_OK)


@pytest.mark.parametrize("url", ["http://8.8.8.8/", "http://16843009/", "https://[2606:4700::1]/"])
async def test_public_literals_pass_without_dns(url: str) -> None:
    checked = await check_url(url, OPEN, NO_DNS)
    assert checked.addresses == (checked.parsed.host,)


async def test_a_name_resolving_to_public_addresses_passes_with_them_all() -> None:
    resolver = StaticResolver({"pub.example": ["93.184.216.34", "2606:2800:220:1::1"]})
    checked = await check_url("https://pub.example/", OPEN, resolver)
    assert checked.addresses == ("93.184.216.34", "2606:2800:220:1::1")


async def test_a_name_resolving_to_a_private_address_is_refused() -> None:
    resolver = StaticResolver({"inside.example": ["10.1.2.3"]})
    assert "resolves to '10.1.2.3'" in await refused("http://inside.example/", OPEN, resolver)


async def test_one_private_answer_among_public_ones_is_enough_to_refuse() -> None:
    resolver = StaticResolver({"mixed.example": ["93.184.216.34", "127.0.0.1"]})
    assert "private/reserved" in await refused("http://mixed.example/", OPEN, resolver)


async def test_a_name_resolving_to_metadata_is_refused_even_with_the_private_opt_in() -> None:
    resolver = StaticResolver({"sneaky.example": ["169.254.169.254"]})
    assert "cloud-metadata" in await refused("http://sneaky.example/", PRIVATE_OK, resolver)


async def test_dns_failure_refuses_the_url() -> None:
    # Upstream let the URL through when the lookup failed (fail open).
    assert "could not be resolved" in await refused("http://nowhere.example/", OPEN, NO_DNS)


async def test_an_empty_dns_answer_refuses_the_url() -> None:
    resolver = StaticResolver({"empty.example": []})
    assert "no address" in await refused("http://empty.example/", OPEN, resolver)


async def test_a_resolver_answer_that_is_not_an_address_refuses_the_url() -> None:
    resolver = StaticResolver({"odd.example": ["not-an-ip"]})
    assert "not an IP address" in await refused("http://odd.example/", OPEN, resolver)


async def test_messages_never_echo_the_url_path_or_query() -> None:
    message = await refused("http://10.0.0.1/reset?token=s3cret")
    assert "s3cret" not in message
