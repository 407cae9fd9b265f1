"""Property tests: every spelling of a private IPv4 is refused; the wildcard rule holds."""

from __future__ import annotations

import ipaddress

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from spellings import ipv4_spelling

from toolwire.capabilities.kinds.network import (
    StaticResolver,
    check_url,
    host_matches,
    parse_url,
    pattern_covers,
)
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.errors import HostNotAllowedError

PRIVATE_V4 = [
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "224.0.0.0/4",
    "240.0.0.0/4",
]


@st.composite
def private_ipv4(draw: st.DrawFn) -> int:
    network = ipaddress.IPv4Network(draw(st.sampled_from(PRIVATE_V4)))
    offset = draw(st.integers(0, network.num_addresses - 1))
    return int(network.network_address) + offset


async def _check(url: str) -> None:
    await check_url(url, NetworkPolicy(), StaticResolver({}))


@given(st.data())
def test_every_spelling_of_a_private_ipv4_is_refused(data: st.DataObject) -> None:
    value = data.draw(private_ipv4())
    url = f"http://{data.draw(ipv4_spelling(value))}/"
    with pytest.raises(HostNotAllowedError, match="private/reserved range"):
        anyio.run(_check, url)


@given(st.data())
def test_every_spelling_canonicalises_to_the_dotted_quad(data: st.DataObject) -> None:
    value = data.draw(st.integers(0, 2**32 - 1))
    spelling = data.draw(ipv4_spelling(value))
    assert parse_url(f"http://{spelling}/").host == str(ipaddress.IPv4Address(value))


@given(st.data())
def test_every_mapped_ipv6_spelling_of_a_private_ipv4_is_refused(data: st.DataObject) -> None:
    v4 = ipaddress.IPv4Address(data.draw(private_ipv4()))
    template = data.draw(
        st.sampled_from(["::ffff:{v4}", "::ffff:{hex}", "::{v4}", "2002:{hex}::1", "64:ff9b::{v4}"])
    )
    hi, lo = divmod(int(v4), 1 << 16)
    literal = template.format(v4=v4, hex=f"{hi:x}:{lo:x}")
    with pytest.raises(HostNotAllowedError):
        anyio.run(_check, f"http://[{literal}]/")


# A label starts with a letter: a host ending in a number is an IPv4 address (``0.0`` is
# 0.0.0.0), in a pattern as in a URL.
LABEL = st.from_regex(r"[a-z][a-z0-9-]{0,7}", fullmatch=True)
DOMAIN = st.lists(LABEL, min_size=1, max_size=3).map(".".join)


@given(sub=DOMAIN, base=DOMAIN)
def test_subdomain_wildcard_matches_strict_subdomains_only(sub: str, base: str) -> None:
    assert host_matches(f"{sub}.{base}", f"*.{base}")
    assert not host_matches(base, f"*.{base}")
    assert host_matches(f"{sub}.{base}".upper() + ".", f"*.{base}")


@given(host=DOMAIN, base=DOMAIN)
def test_wildcard_matches_exactly_hosts_ending_in_dot_base(host: str, base: str) -> None:
    assert host_matches(host, f"*.{base}") == host.endswith("." + base)
    assert host_matches(host, "*")
    assert host_matches(host, host.upper())


PATTERN = st.one_of(st.just("*"), DOMAIN, DOMAIN.map(lambda d: "*." + d))


@given(host=DOMAIN, broad=PATTERN, narrow=PATTERN)
def test_a_covering_pattern_matches_every_host_the_narrow_one_does(
    host: str, broad: str, narrow: str
) -> None:
    if pattern_covers(broad, narrow) and host_matches(host, narrow):
        assert host_matches(host, broad)
