"""The shared policy's second door: `parse_authority`, `check_destination`, ports, codes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.capabilities.kinds.network import (
    DEFAULT_PORTS,
    Destination,
    PolicyRefusal,
    SafeFetcher,
    StaticResolver,
    check_destination,
    check_url,
    parse_authority,
    parse_url,
    pattern_matches,
    split_pattern,
)
from toolwire.capabilities.kinds.network._ports import port_allowed
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import HostNotAllowedError

pytestmark = pytest.mark.anyio

RESOLVER = StaticResolver(
    {"pub.test": ["93.184.215.14"], "lan.test": ["10.0.0.7"], "local.test": ["127.0.0.1"]}
)


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [
        ("example.com:443", "example.com", 443),
        ("EXAMPLE.com.:80", "example.com", 80),
        ("0x7f.1:8080", "127.0.0.1", 8080),
        ("2130706433:1", "127.0.0.1", 1),
        ("[::FFFF:169.254.169.254]:80", "::ffff:a9fe:a9fe", 80),
        ("%31%32%37.0.0.1:443", "127.0.0.1", 443),
        ("xn--bcher-kva.example:443", "xn--bcher-kva.example", 443),
    ],
)
def test_authorities_read_hosts_as_urls_do(text: str, host: str, port: int) -> None:
    destination = parse_authority(text)
    assert (destination.host, destination.port) == (host, port)
    assert destination.host == parse_url(f"http://{text}/").host


@pytest.mark.parametrize(
    "text",
    [
        "example.com",
        "example.com:",
        "example.com:0",
        "example.com:65536",
        "example.com:+80",
        "[::1]",
        "[::1]x:80",
        "user@example.com:443",
        "example.com/path:443",
        "example.com:443/",
        "exa mple.com:443",
        "b\u00fccher.example:443",
        "1.2.3.256:443",
        ":443",
        "a:b:443",
        "",
    ],
)
def test_malformed_authorities_are_refused_with_their_code(text: str) -> None:
    with pytest.raises(PolicyRefusal) as refusal:
        parse_authority(text)
    assert refusal.value.code == "malformed-url"
    assert str(refusal.value).startswith("HOST_NOT_ALLOWED: ")


@given(st.text(max_size=40))
def test_parse_authority_raises_only_refusals(text: str) -> None:
    code, port = None, 1
    try:
        port = parse_authority(text).port
    except PolicyRefusal as refusal:
        code = refusal.code
    assert code in (None, "malformed-url")
    assert 0 < port < 65536


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("api.x.com:8443", ("api.x.com", 8443)),
        ("*.x.com:8080", ("*.x.com", 8080)),
        ("[::1]:8000", ("[::1]", 8000)),
        ("*:8080", ("*", 8080)),
        ("api.x.com", ("api.x.com", None)),
        ("::1", ("::1", None)),
        ("[::1]", ("[::1]", None)),
        ("api.x.com:0", ("api.x.com:0", None)),
        ("api.x.com:http", ("api.x.com:http", None)),
    ],
)
def test_split_pattern(pattern: str, expected: tuple[str, int | None]) -> None:
    assert split_pattern(pattern) == expected


def test_a_pattern_with_a_port_matches_that_port_only() -> None:
    assert pattern_matches("api.x.com", "api.x.com:8443", 8443)
    assert not pattern_matches("api.x.com", "api.x.com:8443", 443)
    assert pattern_matches("api.x.com", "api.x.com:8443")  # hosts only
    assert pattern_matches("a.x.com", "*.x.com:8080", 8080)
    assert pattern_matches("::1", "[::1]:8000", 8000)
    assert pattern_matches("api.x.com", "api.x.com", 1234)


def test_port_allowed_needs_a_default_port_or_a_pattern_naming_it() -> None:
    assert port_allowed("a.com", 443, (), DEFAULT_PORTS)
    assert not port_allowed("a.com", 22, ("a.com",), DEFAULT_PORTS)
    assert port_allowed("a.com", 22, ("a.com:22",), DEFAULT_PORTS)
    assert not port_allowed("b.com", 22, ("a.com:22",), DEFAULT_PORTS)


async def refusal_code(destination: str, policy: NetworkPolicy, **kwargs: object) -> str | None:
    try:
        await check_destination(parse_authority(destination), policy, RESOLVER, **kwargs)  # type: ignore[arg-type]
    except PolicyRefusal as refusal:
        return refusal.code
    return None


@pytest.mark.parametrize(
    ("destination", "policy", "code"),
    [
        ("pub.test:443", NetworkPolicy(), None),
        ("lan.test:443", NetworkPolicy(), "private-address"),
        ("lan.test:443", NetworkPolicy(allow_private_urls=True), None),
        ("localhost:443", NetworkPolicy(), "private-address"),
        ("metadata.google.internal:80", NetworkPolicy(allow_private_urls=True), "metadata"),
        ("169.254.169.254:80", NetworkPolicy(allow_private_urls=True), "metadata"),
        ("[fd00:ec2::254]:80", NetworkPolicy(allow_private_urls=True), "metadata"),
        ("0.0.0.0:80", NetworkPolicy(allow_private_urls=True), "reserved-address"),
        ("nowhere.test:443", NetworkPolicy(), "dns-failure"),
        ("pub.test:443", NetworkPolicy(deny=("pub.test",)), "deny-list"),
        ("pub.test:443", NetworkPolicy(deny=("pub.test:80",)), None),
        ("pub.test:443", NetworkPolicy(allow=("other.test",)), "not-on-allow-list"),
        ("pub.test:8443", NetworkPolicy(allow=("pub.test:8443",)), None),
        ("pub.test:443", NetworkPolicy(allow=("pub.test:8443",)), "not-on-allow-list"),
    ],
)
async def test_check_destination_codes(
    destination: str, policy: NetworkPolicy, code: str | None
) -> None:
    assert await refusal_code(destination, policy) == code


async def test_the_port_rule_applies_only_when_asked() -> None:
    open_policy = NetworkPolicy()
    assert await refusal_code("pub.test:25", open_policy) is None
    assert await refusal_code("pub.test:25", open_policy, ports=DEFAULT_PORTS) == (
        "port-not-allowed"
    )
    named = NetworkPolicy(allow=("pub.test:25",))
    assert await refusal_code("pub.test:25", named, ports=DEFAULT_PORTS) is None
    declared = {"ports": DEFAULT_PORTS, "allowed_hosts": ("pub.test:25",)}
    assert await refusal_code("pub.test:25", open_policy, **declared) is None
    assert await refusal_code("pub.test:443", open_policy, allowed_hosts=("x.test",)) == (
        "not-declared"
    )


async def test_check_url_and_check_destination_agree() -> None:
    checked_url = await check_url("http://pub.test:8080/x?y", NetworkPolicy(), RESOLVER)
    checked = await check_destination(
        Destination(host="pub.test", port=8080, address=None), NetworkPolicy(), RESOLVER
    )
    assert checked_url.addresses == checked.addresses == ("93.184.215.14",)
    assert checked_url.parsed.destination == checked.destination


async def test_safe_fetcher_refusals_carry_codes_too(fetcher: SafeFetcher) -> None:
    with pytest.raises(PolicyRefusal) as metadata:
        await fetcher.fetch("http://169.254.169.254/latest/")
    with pytest.raises(PolicyRefusal) as scheme:
        await fetcher.fetch("file:///etc/passwd")
    assert (metadata.value.code, scheme.value.code) == ("metadata", "scheme-not-allowed")
    assert isinstance(metadata.value, HostNotAllowedError)
    assert isinstance(metadata.value, PermissionError)


async def test_redirect_refusals_keep_their_code(
    fetcher: SafeFetcher, server: object, local: NetworkPolicy
) -> None:
    from network_servers import RunningServer

    assert isinstance(server, RunningServer)
    start = server.redirect("a.test", "http://metadata.google.internal/")
    with pytest.raises(PolicyRefusal) as refusal:
        await fetcher.fetch(start, policy=local)
    assert refusal.value.code == "metadata"
    assert str(refusal.value).endswith("(at redirect hop 1)")
    loop = server.url("a.test", "/chain/9")
    with pytest.raises(PolicyRefusal) as too_many:
        await fetcher.fetch(loop, policy=local)
    assert too_many.value.code == "too-many-redirects"
